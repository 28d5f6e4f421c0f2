import CBOR
import COSE
import ISO18013

/// Messages a correct reader would not send, for conformance cases that test how a holder
/// answers them: arbitrary plaintext under this session's keys (a malformed DeviceRequest),
/// and the holder's answer decrypted without being verified.
extension ReaderSession {
    /// SessionEstablishment whose `data` is `plaintext` encrypted under this session's keys.
    public mutating func establishment(plaintext: [UInt8]) throws(ISO18013Error) -> [UInt8] {
        SessionEstablishment(eReaderKey: COSEKey(eReaderKey.publicKey), data: try encryption.encrypt(plaintext))
            .encoded
    }

    /// SessionData whose `data` is `plaintext` encrypted under this session's keys (the next
    /// reader counter).
    public mutating func sessionData(plaintext: [UInt8]) throws(ISO18013Error) -> [UInt8] {
        SessionData(data: try encryption.encrypt(plaintext)).encoded
    }

    /// `ciphertext` from the holder decrypted (the next holder counter), not verified.
    public mutating func decrypt(_ ciphertext: [UInt8]) throws(ISO18013Error) -> [UInt8] {
        try encryption.decrypt(ciphertext)
    }
}

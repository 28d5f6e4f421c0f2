import CBOR
import COSE
import MdocCrypto

/// Session encryption (ISO 18013-5 9.1.1.5): SKReader and SKDevice from ECDH and HKDF,
/// AES-256-GCM with an IV of an 8-byte party identifier and a 4-byte message counter, one
/// counter per direction, each starting at 1.
public struct SessionEncryption: Sendable {
    /// Which side of the session this is.
    public enum Role: Sendable { case mdoc, reader }

    public let role: Role
    private let sendKey: SecretBytes
    private let receiveKey: SecretBytes
    /// Counter of the next message this side sends / expects to receive.
    public private(set) var sendCounter: UInt32 = 1
    public private(set) var receiveCounter: UInt32 = 1

    /// - Parameters:
    ///   - privateKey: this side's ephemeral key (EDeviceKey for the mdoc, EReaderKey for the reader).
    ///   - peerKey: the other side's ephemeral public key.
    public init(role: Role, privateKey: PrivateKey, peerKey: PublicKey, transcript: SessionTranscript)
        throws(ISO18013Error)
    {
        let (skReader, skDevice) = try Self.deriveKeys(privateKey: privateKey, peerKey: peerKey, transcript: transcript)
        self.role = role
        switch role {
        case .mdoc:
            sendKey = skDevice
            receiveKey = skReader
        case .reader:
            sendKey = skReader
            receiveKey = skDevice
        }
    }

    /// SKReader and SKDevice: HKDF-SHA256(IKM = ECDH shared secret, salt =
    /// SHA-256(SessionTranscriptBytes), info = "SKReader" / "SKDevice", L = 32).
    public static func deriveKeys(privateKey: PrivateKey, peerKey: PublicKey, transcript: SessionTranscript)
        throws(ISO18013Error) -> (skReader: SecretBytes, skDevice: SecretBytes)
    {
        do {
            let z = try privateKey.sharedSecret(with: peerKey)
            let salt = transcript.salt
            let skReader = try HKDF.sha256(ikm: z, salt: salt, info: Array("SKReader".utf8), length: 32)
            let skDevice = try HKDF.sha256(ikm: z, salt: salt, info: Array("SKDevice".utf8), length: 32)
            return (skReader, skDevice)
        } catch {
            throw .crypto(error)
        }
    }

    private static let readerIdentifier: [UInt8] = [0, 0, 0, 0, 0, 0, 0, 0]
    private static let mdocIdentifier: [UInt8] = [0, 0, 0, 0, 0, 0, 0, 1]

    private static func iv(for sender: Role, counter: UInt32) -> [UInt8] {
        (sender == .reader ? readerIdentifier : mdocIdentifier)
            + [
                UInt8(counter >> 24), UInt8((counter >> 16) & 0xFF), UInt8((counter >> 8) & 0xFF),
                UInt8(counter & 0xFF),
            ]
    }

    private var peer: Role { role == .mdoc ? .reader : .mdoc }

    /// Encrypts the next outgoing message.
    public mutating func encrypt(_ plaintext: [UInt8]) throws(ISO18013Error) -> [UInt8] {
        guard sendCounter < UInt32.max else { throw .sessionEncryption("message counter exhausted") }
        do {
            let out = try AESGCM.seal(plaintext, key: sendKey, iv: Self.iv(for: role, counter: sendCounter))
            sendCounter += 1
            return out
        } catch {
            throw .sessionEncryption("encryption failed")
        }
    }

    /// Decrypts the next incoming message; a failure means the session must end with status 10.
    public mutating func decrypt(_ ciphertext: [UInt8]) throws(ISO18013Error) -> [UInt8] {
        guard receiveCounter < UInt32.max else { throw .sessionEncryption("message counter exhausted") }
        do {
            let out = try AESGCM.open(ciphertext, key: receiveKey, iv: Self.iv(for: peer, counter: receiveCounter))
            receiveCounter += 1
            return out
        } catch {
            throw .sessionEncryption(
                "message \(receiveCounter) from the \(peer == .reader ? "reader" : "mdoc") does not decrypt")
        }
    }
}

/// Derives the BLE Ident characteristic value (8.3.3.1.1.4): HKDF-SHA256(IKM =
/// EDeviceKeyBytes including its tag-24 header, salt = empty, info = "BLEIdent", L = 16). The
/// value itself is BLETransport's `BLEIdent`.
public enum BLEIdentDerivation {
    public static func compute(eDeviceKeyBytes: EmbeddedCBOR) throws(ISO18013Error) -> [UInt8] {
        do {
            return try HKDF.sha256(
                ikm: eDeviceKeyBytes.taggedEncoding, salt: [], info: Array("BLEIdent".utf8), length: 16)
        } catch {
            throw .crypto(error)
        }
    }
}

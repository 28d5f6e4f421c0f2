import COSE
import ISO18013
import MdocCrypto
import SecureArea

/// ISO 18013-5 9.1.3 mdoc authentication with a device key in a secure area: the area signs the
/// DeviceAuthenticationBytes' Sig_structure, or does the ECDH of EMacKey; the key never comes
/// to this process.
enum DeviceKeyAuthentication {
    /// deviceSignature.
    static func sign(
        transcript: SessionTranscript, docType: String, key: any DeviceKey, algorithm: SignatureAlgorithm
    ) throws(SecureAreaError) -> DeviceSigned {
        let nameSpaces = DeviceAuthentication.emptyNameSpaces
        let payload = DeviceAuthentication.bytes(transcript: transcript, docType: docType, nameSpacesBytes: nameSpaces)
        let signature = try COSESign1.sign(payload: payload, detached: true, algorithm: algorithm) {
            (toBeSigned) throws(SecureAreaError) in
            try key.signature(over: toBeSigned, algorithm: algorithm)
        }
        return DeviceSigned(nameSpacesBytes: nameSpaces, deviceAuth: .signature(signature))
    }

    /// deviceMac: EMacKey = HKDF-SHA256(ECDH(SDeviceKey, EReaderKey), SHA-256(SessionTranscriptBytes),
    /// "EMacKey", 32).
    static func mac(transcript: SessionTranscript, docType: String, key: any DeviceKey, readerKey: PublicKey)
        throws(SecureAreaError) -> DeviceSigned
    {
        let z = try key.keyAgreement(with: readerKey)
        let eMacKey: SecretBytes
        do {
            eMacKey = try HKDF.sha256(ikm: z, salt: transcript.salt, info: Array("EMacKey".utf8), length: 32)
        } catch {
            throw .unsupportedOperation(keyID: key.location, reason: "\(error)")
        }
        return DeviceAuthentication.mac(transcript: transcript, docType: docType, eMacKey: eMacKey)
    }
}

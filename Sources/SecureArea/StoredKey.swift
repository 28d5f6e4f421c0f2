import FoundationEssentials
import MdocCrypto

/// A key as the credential store keeps it: which area holds it and only what that area needs
/// to use it (the software area's wrapped blob, the TPM's TSS2 PRIVATE KEY blob), never a
/// plaintext private key.
///
/// `description` names the key and its area only.
public struct StoredKey: Sendable, Hashable, CustomStringConvertible {
    /// Opaque, random (16 hex digits).
    public var id: String
    public var area: SecureAreaName
    public var curve: Curve
    /// The public key, DER SubjectPublicKeyInfo.
    public var publicKeyDER: [UInt8]
    /// What the area needs: a wrapped key, a TSS2 PEM, a PKCS#11 URI.
    public var blob: [UInt8]
    /// Whether every use needs a passphrase / auth value / PIN.
    public var requiresPassphrase: Bool
    public var createdAt: Date

    public init(
        id: String, area: SecureAreaName, curve: Curve, publicKeyDER: [UInt8], blob: [UInt8],
        requiresPassphrase: Bool, createdAt: Date = Date()
    ) {
        self.id = id
        self.area = area
        self.curve = curve
        self.publicKeyDER = publicKeyDER
        self.blob = blob
        self.requiresPassphrase = requiresPassphrase
        self.createdAt = createdAt
    }

    /// The public key.
    public func publicKey() throws(SecureAreaError) -> PublicKey {
        do {
            return try PublicKey(subjectPublicKeyInfoDER: publicKeyDER)
        } catch {
            throw .damagedKey(keyID: id, reason: "its public key cannot be read (\(error))")
        }
    }

    /// A fresh random key ID: 16 hex digits.
    public static func newID() -> String {
        Hex.text(SecureRandom.bytes(8))
    }

    public var description: String { "key \(id) (\(area), \(curve.rawValue))" }
}

import MdocCrypto

/// A device key the presentation engines can use without holding it: they hand it the bytes to
/// sign, or the reader's key to agree with, and get the result back. The key itself stays in
/// its secure area.
///
/// `description` names the key and its area, never key material.
public protocol DeviceKey: Sendable, CustomStringConvertible {
    var curve: Curve { get }
    var publicKey: PublicKey { get }
    /// Where the key is, for log lines: "key 1a2b… in the tpm2 secure area".
    var location: String { get }
    /// A COSE-form signature over `message` (raw r‖s for ECDSA).
    func signature(over message: [UInt8], algorithm: SignatureAlgorithm) throws(SecureAreaError) -> [UInt8]
    /// ECDH with `peer`: the x coordinate of the shared point.
    func keyAgreement(with peer: PublicKey) throws(SecureAreaError) -> SecretBytes
}

/// A stored key with the area that can use it (and its passphrase, when it needs one).
public struct SecureAreaKey: DeviceKey {
    public let stored: StoredKey
    public let area: any SecureArea
    public let publicKey: PublicKey
    private let passphrase: String?

    public init(_ stored: StoredKey, in area: any SecureArea, passphrase: String? = nil) throws(SecureAreaError) {
        self.stored = stored
        self.area = area
        self.publicKey = try stored.publicKey()
        self.passphrase = passphrase
    }

    public var curve: Curve { stored.curve }
    public var location: String { "key \(stored.id) in the \(stored.area) secure area" }

    public func signature(over message: [UInt8], algorithm: SignatureAlgorithm) throws(SecureAreaError) -> [UInt8] {
        try area.sign(message, algorithm: algorithm, key: stored, passphrase: passphrase)
    }

    public func keyAgreement(with peer: PublicKey) throws(SecureAreaError) -> SecretBytes {
        try area.keyAgreement(with: peer, key: stored, passphrase: passphrase)
    }

    public var description: String { "SecureAreaKey(\(stored.id), \(stored.area), \(curve.rawValue))" }
}

/// A key in this process's memory (tests, benchmarks, the demo's ephemeral keys).
extension PrivateKey: DeviceKey {
    public var location: String { "an in-memory key" }

    public func signature(over message: [UInt8], algorithm: SignatureAlgorithm) throws(SecureAreaError) -> [UInt8] {
        do {
            return try sign(message, algorithm: algorithm)
        } catch {
            throw .unsupportedOperation(keyID: "in-memory", reason: "\(error)")
        }
    }

    public func keyAgreement(with peer: PublicKey) throws(SecureAreaError) -> SecretBytes {
        do {
            return try sharedSecret(with: peer)
        } catch {
            throw .unsupportedOperation(keyID: "in-memory", reason: "\(error)")
        }
    }
}

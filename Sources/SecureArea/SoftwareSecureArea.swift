import Foundation
import MdocCrypto

/// Keys in process memory only while they are used, stored wrapped (``SoftwareKeyBlob``) under a
/// key-encryption key that lives outside the store: the systemd credential, `--kek-file`, or
/// the user's configuration directory. Every curve of ``Curve``; not hardware-bound.
///
/// A store whose KEK is missing still opens and lists; using a key throws
/// ``SecureAreaError/keyEncryptionKeyMissing(location:remedy:)`` saying where the KEK should be.
///
/// Thread safety: `Sendable`; the KEK, once read, is cached under a lock.
public final class SoftwareSecureArea: SecureArea, @unchecked Sendable {
    public let name = SecureAreaName.software
    public let source: KeyEncryptionKeySource
    /// scrypt cost for passphrase-protected keys.
    let cost: Scrypt.Cost
    private let lock = NSLock()
    private var cached: KeyEncryptionKey?

    /// Opens (or, made on first use, protects) a passphrase-protected KEK file.
    public let kekPassphrase: String?

    public init(
        source: KeyEncryptionKeySource, passphraseCost: Scrypt.Cost = Scrypt.Cost(), kekPassphrase: String? = nil
    ) {
        self.source = source
        self.cost = passphraseCost
        self.kekPassphrase = kekPassphrase
    }

    /// The KEK, created first when the source allows it and `create`.
    func kek(create: Bool) throws(SecureAreaError) -> KeyEncryptionKey {
        lock.lock()
        defer { lock.unlock() }
        if let cached { return cached }
        let kek = try source.load(create: create, passphrase: kekPassphrase)
        cached = kek
        return kek
    }

    /// Whether the KEK can be read now (without creating it).
    public var isKeyEncryptionKeyAvailable: Bool { (try? kek(create: false)) != nil }

    public func createKey(_ settings: KeySettings) throws(SecureAreaError) -> StoredKey {
        let key: PrivateKey
        do {
            key = try PrivateKey.generate(settings.curve)
        } catch {
            throw .unsupportedCurve(area: .software, curve: settings.curve)
        }
        return try importKey(key, passphrase: settings.passphrase)
    }

    public func importKey(_ key: PrivateKey, passphrase: String?) throws(SecureAreaError) -> StoredKey {
        let id = StoredKey.newID()
        var der: [UInt8]
        do {
            der = try key.pkcs8DER()
        } catch {
            throw .unsupportedOperation(keyID: id, reason: "the key cannot be exported for wrapping (\(error))")
        }
        defer { for i in der.indices { der[i] = 0 } }
        let blob = try SoftwareKeyBlob.seal(
            der, keyID: id, kek: try kek(create: true), passphrase: passphrase, cost: cost)
        return StoredKey(
            id: id, area: .software, curve: key.curve, publicKeyDER: key.publicKey.subjectPublicKeyInfoDER, blob: blob,
            requiresPassphrase: passphrase != nil)
    }

    /// The unwrapped key, for one operation.
    func privateKey(_ key: StoredKey, passphrase: String?) throws(SecureAreaError) -> PrivateKey {
        guard key.area == .software else { throw .wrongArea(keyID: key.id, expected: .software, found: key.area) }
        var der = try SoftwareKeyBlob.open(key.blob, keyID: key.id, kek: try kek(create: false), passphrase: passphrase)
        defer { for i in der.indices { der[i] = 0 } }
        do {
            return try PrivateKey(pkcs8DER: der)
        } catch {
            throw .damagedKey(keyID: key.id, reason: "the unwrapped key cannot be read (\(error))")
        }
    }

    public func sign(_ message: [UInt8], algorithm: SignatureAlgorithm, key: StoredKey, passphrase: String?)
        throws(SecureAreaError) -> [UInt8]
    {
        let privateKey = try privateKey(key, passphrase: passphrase)
        do {
            return try privateKey.sign(message, algorithm: algorithm)
        } catch {
            throw .unsupportedOperation(keyID: key.id, reason: "\(error)")
        }
    }

    public func keyAgreement(with peer: PublicKey, key: StoredKey, passphrase: String?) throws(SecureAreaError)
        -> SecretBytes
    {
        let privateKey = try privateKey(key, passphrase: passphrase)
        do {
            return try privateKey.sharedSecret(with: peer)
        } catch {
            throw .unsupportedOperation(keyID: key.id, reason: "\(error)")
        }
    }

    /// Nothing is held beyond the stored blob.
    public func deleteKey(_ key: StoredKey) throws(SecureAreaError) {}
}

import FoundationEssentials
import MdocCrypto
import Synchronization

/// Keys in process memory only while one operation uses them, stored wrapped (``SoftwareKeyBlob``) under a
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
    private let lock = Mutex<Void>(())
    private var cached: KeyEncryptionKey?
    private let live = LiveCount()
    /// The public keys of keys used so far (not secret), by key ID: building one is about a
    /// third of an unwrap. At most ``publicKeyCacheSize``.
    private var publicKeys: [String: PublicKey] = [:]
    private static let publicKeyCacheSize = 64

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
        try lock.withLock { (_) throws(SecureAreaError) -> KeyEncryptionKey in
            if let cached { return cached }
            let kek = try source.load(create: create, passphrase: kekPassphrase)
            cached = kek
            return kek
        }
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

    /// The unwrapped key, for one operation: the caller drops it when the operation is done.
    /// The decrypted PKCS#8 is cleared as soon as OpenSSL's key object holds the key.
    func unwrap(_ key: StoredKey, passphrase: String?) throws(SecureAreaError) -> UnwrappedKey {
        guard key.area == .software else { throw .wrongArea(keyID: key.id, expected: .software, found: key.area) }
        var der = try SoftwareKeyBlob.open(key.blob, keyID: key.id, kek: try kek(create: false), passphrase: passphrase)
        defer { for i in der.indices { der[i] = 0 } }
        do {
            // The AEAD tag (under the KEK, bound to the key ID) vouches for what we wrapped.
            let privateKey = try PrivateKey(
                authenticatedPKCS8DER: der, curve: key.curve, publicKey: knownPublicKey(key))
            remember(privateKey.publicKey, of: key)
            return UnwrappedKey(privateKey, counting: live)
        } catch {
            throw .damagedKey(keyID: key.id, reason: "the unwrapped key cannot be read (\(error))")
        }
    }

    /// The public key last unwrapped with `key`'s ID (the unwrap uses it only when it equals
    /// the point inside the authenticated PKCS#8).
    private func knownPublicKey(_ key: StoredKey) -> PublicKey? {
        lock.withLock { _ in publicKeys[key.id] }
    }

    private func remember(_ publicKey: PublicKey, of key: StoredKey) {
        lock.withLock { _ in
            if publicKeys[key.id] === publicKey { return }
            if publicKeys.count >= Self.publicKeyCacheSize { publicKeys.removeAll() }
            publicKeys[key.id] = publicKey
        }
    }

    /// How many unwrapped keys of this area exist now: 0 between operations (nothing is kept
    /// unwrapped beyond the operation that needed it; see docs/operator-guide.md).
    public var liveUnwrappedKeys: Int { live.count.load(ordering: .relaxed) }

    public func sign(_ message: [UInt8], algorithm: SignatureAlgorithm, key: StoredKey, passphrase: String?)
        throws(SecureAreaError) -> [UInt8]
    {
        let unwrapped = try unwrap(key, passphrase: passphrase)
        do {
            return try unwrapped.key.sign(message, algorithm: algorithm)
        } catch {
            throw .unsupportedOperation(keyID: key.id, reason: "\(error)")
        }
    }

    public func keyAgreement(with peer: PublicKey, key: StoredKey, passphrase: String?) throws(SecureAreaError)
        -> SecretBytes
    {
        let unwrapped = try unwrap(key, passphrase: passphrase)
        do {
            return try unwrapped.key.sharedSecret(with: peer)
        } catch {
            throw .unsupportedOperation(keyID: key.id, reason: "\(error)")
        }
    }

    /// Nothing is held beyond the stored blob.
    public func deleteKey(_ key: StoredKey) throws(SecureAreaError) {}
}

import FoundationEssentials
import MdocCrypto
import Synchronization

/// Keys made inside a TPM 2.0 through OpenSSL 3's tpm2 provider (Debian `tpm2-openssl`). The
/// store keeps the key's TSS2 PRIVATE KEY blob (DER): the private part encrypted by the TPM under
/// its storage primary key, loadable by that TPM only. Signing and ECDH run in the TPM. NIST curves
/// (what TPMs implement); an optional auth value per key.
///
/// The TPM is reached through a TCTI: `--tpm-tcti`, else `TPM2OPENSSL_TCTI`, else the kernel
/// resource manager `/dev/tpmrm0`. The provider is loaded on first use; when the TPM goes away
/// (a restarted swtpm, a resource manager restart) the next operation loads it again once.
///
/// Thread safety: `Sendable`; the loaded provider is cached under a lock.
public final class TPM2SecureArea: SecureArea, @unchecked Sendable {
    public let name = SecureAreaName.tpm2
    /// The TCTI configuration string ("device:/dev/tpmrm0", "swtpm:host=127.0.0.1,port=2321").
    public let tcti: String
    private let lock = Mutex<Void>(())
    private var provider: OpenSSLProvider?

    /// The kernel resource manager, when nothing else is configured.
    public static let defaultTCTI = "device:/dev/tpmrm0"

    /// `tcti` when given, else `TPM2OPENSSL_TCTI`, else ``defaultTCTI``.
    public static func resolveTCTI(
        _ tcti: String?, environment: [String: String] = ProcessInfo.processInfo.environment
    ) -> String {
        if let tcti, !tcti.isEmpty { return tcti }
        if let fromEnvironment = environment["TPM2OPENSSL_TCTI"], !fromEnvironment.isEmpty { return fromEnvironment }
        return defaultTCTI
    }

    public init(tcti: String) {
        self.tcti = tcti
    }

    /// The loaded provider (loaded now when it is not).
    private func loadedProvider(fresh: Bool = false) throws(SecureAreaError) -> OpenSSLProvider {
        try lock.withLock { (_) throws(SecureAreaError) -> OpenSSLProvider in
            if let provider, !fresh { return provider }
            provider = nil
            do {
                let loaded = try OpenSSLProvider(name: "tpm2", environment: ["TPM2OPENSSL_TCTI": tcti])
                provider = loaded
                return loaded
            } catch {
                throw .backendUnavailable(
                    area: .tpm2,
                    reason:
                        "no TPM answers at the TCTI \(tcti), or the tpm2 provider (Debian package tpm2-openssl) is not installed (\(error)); give the TPM with --tpm-tcti or TPM2OPENSSL_TCTI"
                )
            }
        }
    }

    /// Runs `body` with the provider; when it fails for a reason other than the key itself, loads
    /// the provider again once and retries (the TPM may have restarted).
    /// A key with an auth value is not tried twice: a wrong value counts against the TPM's
    /// dictionary-attack lockout.
    private func withProvider<R>(
        keyID: String, operation: String, hasAuthValue: Bool = false,
        _ body: (OpenSSLProvider) throws(CryptoError) -> R
    ) throws(SecureAreaError) -> R {
        do {
            return try body(try loadedProvider())
        } catch let first as CryptoError {
            if let mapped = Self.authenticationError(first, keyID: keyID, hasAuthValue: hasAuthValue) { throw mapped }
            do {
                return try body(try loadedProvider(fresh: true))
            } catch let second as CryptoError {
                if let mapped = Self.authenticationError(second, keyID: keyID, hasAuthValue: hasAuthValue) {
                    throw mapped
                }
                throw .operationFailed(area: .tpm2, keyID: keyID, operation: operation, reason: second.description)
            } catch let error as SecureAreaError {
                throw error
            } catch {
                throw .operationFailed(area: .tpm2, keyID: keyID, operation: operation, reason: "\(error)")
            }
        } catch let error as SecureAreaError {
            throw error
        } catch {
            throw .operationFailed(area: .tpm2, keyID: keyID, operation: operation, reason: "\(error)")
        }
    }

    /// A wrong auth value. The provider reports only "cannot sign" / "cannot derive" (the TPM's
    /// TPM_RC_AUTH_FAIL, 0x98e, goes to the TSS log): for a key with an auth value, a failed use
    /// with the TPM reachable is taken as a wrong value.
    private static func authenticationError(_ error: CryptoError, keyID: String, hasAuthValue: Bool)
        -> SecureAreaError?
    {
        let text = error.description.lowercased()
        let markers = ["auth_fail", "bad_auth", "authorization failure", "0x98e"]
        if markers.contains(where: text.contains) { return .wrongPassphrase(keyID: keyID) }
        if hasAuthValue, ["cannot sign", "cannot derive"].contains(where: text.contains) {
            return .wrongPassphrase(keyID: keyID)
        }
        return nil
    }

    public func createKey(_ settings: KeySettings) throws(SecureAreaError) -> StoredKey {
        guard [.p256, .p384, .p521].contains(settings.curve) else {
            throw .unsupportedCurve(area: .tpm2, curve: settings.curve)
        }
        let id = StoredKey.newID()
        return try withProvider(keyID: id, operation: "create a key") { (provider) throws(CryptoError) in
            let key = try PrivateKey.generate(settings.curve, in: provider, authValue: settings.passphrase)
            guard let der = TSS2Blob.der(fromPEM: try key.providerPEM()) else {
                throw CryptoError.invalidKey("the tpm2 provider wrote no TSS2 PRIVATE KEY")
            }
            return StoredKey(
                id: id, area: .tpm2, curve: key.curve, publicKeyDER: key.publicKey.subjectPublicKeyInfoDER,
                blob: der, requiresPassphrase: settings.passphrase != nil)
        }
    }

    /// A TPM makes its keys; taking in a plaintext key would defeat the point.
    public func importKey(_ key: PrivateKey, passphrase: String?) throws(SecureAreaError) -> StoredKey {
        throw .importNotSupported(area: .tpm2)
    }

    private func load(_ key: StoredKey, passphrase: String?, provider: OpenSSLProvider) throws(CryptoError)
        -> PrivateKey
    {
        let loaded = try PrivateKey(
            providerPEM: TSS2Blob.pem(fromDER: key.blob), provider: provider, authValue: passphrase)
        guard loaded.publicKey.subjectPublicKeyInfoDER == key.publicKeyDER else {
            throw .invalidKey("the TPM key is not the stored public key's")
        }
        return loaded
    }

    private func checkUsable(_ key: StoredKey, passphrase: String?) throws(SecureAreaError) {
        guard key.area == .tpm2 else { throw .wrongArea(keyID: key.id, expected: .tpm2, found: key.area) }
        if key.requiresPassphrase, passphrase == nil { throw .passphraseRequired(keyID: key.id) }
    }

    public func sign(_ message: [UInt8], algorithm: SignatureAlgorithm, key: StoredKey, passphrase: String?)
        throws(SecureAreaError) -> [UInt8]
    {
        try checkUsable(key, passphrase: passphrase)
        return try withProvider(keyID: key.id, operation: "sign", hasAuthValue: key.requiresPassphrase) {
            (provider) throws(CryptoError) in
            try load(key, passphrase: passphrase, provider: provider).sign(message, algorithm: algorithm)
        }
    }

    public func keyAgreement(with peer: PublicKey, key: StoredKey, passphrase: String?) throws(SecureAreaError)
        -> SecretBytes
    {
        try checkUsable(key, passphrase: passphrase)
        return try withProvider(
            keyID: key.id, operation: "do key agreement", hasAuthValue: key.requiresPassphrase
        ) { (provider) throws(CryptoError) in
            try load(key, passphrase: passphrase, provider: provider).sharedSecret(with: peer)
        }
    }

    /// The key is not persistent in the TPM: deleting its blob deletes it.
    public func deleteKey(_ key: StoredKey) throws(SecureAreaError) {}
}

import MdocCrypto

/// Why a secure-area operation failed. Each message says what went wrong and what to do; none
/// carries key material, a passphrase or a shared secret.
public enum SecureAreaError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The software area's key-encryption key is not where it should be.
    case keyEncryptionKeyMissing(location: String, remedy: String)
    /// The key-encryption key file exists but cannot be used.
    case keyEncryptionKeyUnusable(location: String, reason: String)
    /// The key-encryption key file is passphrase-protected and no passphrase was given.
    case keyEncryptionKeyPassphraseRequired(location: String)
    /// The key-encryption key file's passphrase is wrong.
    case wrongKeyEncryptionKeyPassphrase(location: String)
    /// The key was wrapped under another key-encryption key than the one configured.
    case wrongKeyEncryptionKey(keyID: String)
    /// The key needs a passphrase / auth value / PIN and none was given.
    case passphraseRequired(keyID: String)
    /// The passphrase / auth value / PIN is wrong.
    case wrongPassphrase(keyID: String)
    /// The area's backend cannot be reached (no TPM at the TCTI, no token, module missing).
    case backendUnavailable(area: SecureAreaName, reason: String)
    /// The area is not built into this program or not configured.
    case notConfigured(area: SecureAreaName, remedy: String)
    /// The area cannot make keys on this curve.
    case unsupportedCurve(area: SecureAreaName, curve: Curve)
    /// The key cannot do this operation (an X25519 key cannot sign, ...).
    case unsupportedOperation(keyID: String, reason: String)
    /// The area cannot take in an existing private key.
    case importNotSupported(area: SecureAreaName)
    /// The stored key cannot be used (damaged blob, another TPM's key).
    case damagedKey(keyID: String, reason: String)
    /// The stored key belongs to another area than the one asked to use it.
    case wrongArea(keyID: String, expected: SecureAreaName, found: SecureAreaName)
    /// The backend failed while using the key.
    case operationFailed(area: SecureAreaName, keyID: String, operation: String, reason: String)

    public var description: String {
        switch self {
        case .keyEncryptionKeyMissing(let location, let remedy):
            return "the software secure area's key-encryption key \(location) is missing: \(remedy)"
        case .keyEncryptionKeyUnusable(let location, let reason):
            return "the key-encryption key \(location) cannot be used: \(reason)"
        case .keyEncryptionKeyPassphraseRequired(let location):
            return
                "the key-encryption key \(location) is passphrase-protected: give its passphrase (--kek-passphrase-file FILE)"
        case .wrongKeyEncryptionKeyPassphrase(let location):
            return "the passphrase of the key-encryption key \(location) is wrong"
        case .wrongKeyEncryptionKey(let id):
            return
                "key \(id) was wrapped under another key-encryption key than the configured one: give the key-encryption key it was made with (--kek-file, or the mdoc-holder-kek credential)"
        case .passphraseRequired(let id):
            return "key \(id) needs its passphrase (PIN); none was given"
        case .wrongPassphrase(let id):
            return "the passphrase (PIN) of key \(id) is wrong"
        case .backendUnavailable(let area, let reason):
            return "the \(area) secure area is not available: \(reason)"
        case .notConfigured(let area, let remedy):
            return "the \(area) secure area is not available in this build or configuration: \(remedy)"
        case .unsupportedCurve(let area, let curve):
            return "the \(area) secure area cannot make \(curve.rawValue) keys"
        case .unsupportedOperation(let id, let reason):
            return "key \(id) cannot do that: \(reason)"
        case .importNotSupported(let area):
            return
                "the \(area) secure area cannot take in an existing private key: create a key there (mdoc-holder keys create --secure-area \(area)) and have the credential issued to its public key"
        case .damagedKey(let id, let reason):
            return "key \(id) cannot be used: \(reason)"
        case .wrongArea(let id, let expected, let found):
            return "key \(id) is in the \(found) secure area, not \(expected)"
        case .operationFailed(let area, let id, let operation, let reason):
            return "the \(area) secure area failed to \(operation) with key \(id): \(reason)"
        }
    }
}

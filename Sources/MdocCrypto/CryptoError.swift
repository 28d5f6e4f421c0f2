/// Why a cryptographic operation failed.
///
/// Messages describe what went wrong (a curve, a length, an OpenSSL routine) and never carry key
/// material, plaintext or other secret values.
public enum CryptoError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The curve cannot be used for the requested operation, or a key uses a curve this library
    /// does not support. The text says what and why.
    case unsupportedCurve(String)
    /// A key is malformed or invalid, for example a point that is not on its curve.
    case invalidKey(String)
    /// A signature does not have the expected encoding.
    case invalidSignatureFormat(String)
    /// Authenticated decryption failed: the AES-GCM tag does not match (wrong key, IV, AAD, or
    /// modified data). No further detail is given on purpose.
    case decryptionFailed
    /// An input has a length the operation does not accept.
    case invalidLength(String)
    /// A certificate (DER or PEM) could not be parsed.
    case certificateParse(String)
    /// An OpenSSL call failed. `reason` is OpenSSL's error queue text, which names routines and
    /// reasons, never data.
    case openssl(operation: String, reason: String)
    /// An OpenSSL provider module (tpm2) is not installed or could not start (for the TPM: none
    /// answers at the configured TCTI).
    case providerUnavailable(name: String, reason: String)
    /// A passphrase or auth value was needed and not given, or is wrong.
    case authorizationFailed(String)

    /// A one-line explanation, free of secret values.
    public var description: String {
        switch self {
        case .unsupportedCurve(let why): return "unsupported curve: \(why)"
        case .invalidKey(let why): return "invalid key: \(why)"
        case .invalidSignatureFormat(let why): return "invalid signature format: \(why)"
        case .decryptionFailed: return "decryption failed: authentication tag mismatch"
        case .invalidLength(let why): return "invalid length: \(why)"
        case .certificateParse(let why): return "cannot parse certificate: \(why)"
        case .openssl(let operation, let reason): return "OpenSSL \(operation) failed: \(reason)"
        case .providerUnavailable(let name, let reason):
            return "the OpenSSL provider \(name) is not available: \(reason)"
        case .authorizationFailed(let why): return "authorization failed: \(why)"
        }
    }
}

import MdocCrypto

/// Why a JOSE object (JWK, JWS, JWE) could not be read, checked or made.
///
/// Messages name the member or step that failed; they never carry key material, plaintext,
/// payload values or signatures.
public enum JOSEError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The object is not well formed: wrong number of parts, bad base64url, bad JSON, a
    /// missing or mistyped member. The text says which.
    case malformed(String)
    /// An algorithm (`alg`, `enc`, `crv`, `kty`) this implementation does not support, or one
    /// that does not fit the key.
    case unsupportedAlgorithm(String)
    /// A key is unusable: not on its curve, wrong length, private part missing or not matching.
    case invalidKey(String)
    /// The signature does not verify with the given key.
    case invalidSignature
    /// Authenticated decryption failed (wrong key, modified header, IV, ciphertext or tag).
    /// No further detail on purpose.
    case decryptionFailed

    public var description: String {
        switch self {
        case .malformed(let why): return "malformed JOSE object: \(why)"
        case .unsupportedAlgorithm(let why): return "unsupported algorithm: \(why)"
        case .invalidKey(let why): return "invalid key: \(why)"
        case .invalidSignature: return "signature does not verify"
        case .decryptionFailed: return "decryption failed"
        }
    }

    /// A crypto failure while handling a key, kept free of secrets (CryptoError's texts are).
    static func key(_ error: CryptoError) -> JOSEError {
        .invalidKey(error.description)
    }
}

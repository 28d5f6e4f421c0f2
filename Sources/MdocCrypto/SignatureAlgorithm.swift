/// Signature algorithms, with their COSE `alg` identifiers (RFC 9053).
public enum SignatureAlgorithm: Int, Sendable, CaseIterable {
    /// ECDSA with SHA-256.
    case es256 = -7
    /// ECDSA with SHA-384.
    case es384 = -35
    /// ECDSA with SHA-512.
    case es512 = -36
    /// EdDSA (pure Ed25519 or Ed448, by the key's curve).
    case edDSA = -8

    /// The hash ECDSA applies to the message; `nil` for EdDSA, which hashes internally.
    public var digest: DigestAlgorithm? {
        switch self {
        case .es256: return .sha256
        case .es384: return .sha384
        case .es512: return .sha512
        case .edDSA: return nil
        }
    }

    /// Whether a key on `curve` can make or check this kind of signature: ECDSA needs an EC2
    /// curve, EdDSA needs Ed25519 or Ed448. (Any ECDSA hash is allowed with any EC2 curve, as
    /// ISO 18013-5 pairs brainpool curves with ES256/384/512.)
    func isUsable(with curve: Curve) -> Bool {
        switch self {
        case .edDSA: return curve == .ed25519 || curve == .ed448
        case .es256, .es384, .es512: return !curve.isOKP
        }
    }

    /// The COSE name ("ES256", ...), for messages.
    var name: String {
        switch self {
        case .es256: return "ES256"
        case .es384: return "ES384"
        case .es512: return "ES512"
        case .edDSA: return "EdDSA"
        }
    }
}

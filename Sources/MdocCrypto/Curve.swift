/// Curves of ISO 18013-5 cipher suite 1 plus the EdDSA curves.
///
/// COSE identifiers follow RFC 9053 (P-256 = 1 ... Ed448 = 7) and ISO 18013-5
/// (brainpoolP256r1 = 256 ... brainpoolP512r1 = 259).
public enum Curve: String, Sendable, CaseIterable, Hashable {
    /// NIST P-256 (secp256r1, prime256v1).
    case p256 = "P-256"
    /// NIST P-384 (secp384r1).
    case p384 = "P-384"
    /// NIST P-521 (secp521r1).
    case p521 = "P-521"
    /// Curve25519 for key agreement (RFC 7748).
    case x25519 = "X25519"
    /// Curve448 for key agreement (RFC 7748).
    case x448 = "X448"
    /// Edwards25519 for EdDSA signatures (RFC 8032).
    case ed25519 = "Ed25519"
    /// Edwards448 for EdDSA signatures (RFC 8032).
    case ed448 = "Ed448"
    /// Brainpool P-256 r1 (RFC 5639).
    case brainpoolP256r1
    /// Brainpool P-320 r1 (RFC 5639).
    case brainpoolP320r1
    /// Brainpool P-384 r1 (RFC 5639).
    case brainpoolP384r1
    /// Brainpool P-512 r1 (RFC 5639).
    case brainpoolP512r1

    /// The COSE `crv` value.
    public var coseIdentifier: Int {
        switch self {
        case .p256: return 1
        case .p384: return 2
        case .p521: return 3
        case .x25519: return 4
        case .x448: return 5
        case .ed25519: return 6
        case .ed448: return 7
        case .brainpoolP256r1: return 256
        case .brainpoolP320r1: return 257
        case .brainpoolP384r1: return 258
        case .brainpoolP512r1: return 259
        }
    }

    /// The curve with the given COSE `crv` value, or `nil` if it is not one of these curves.
    public init?(coseIdentifier: Int) {
        guard let curve = Curve.allCases.first(where: { $0.coseIdentifier == coseIdentifier }) else {
            return nil
        }
        self = curve
    }

    /// Whether keys on this curve are COSE kty OKP (1): X25519, X448, Ed25519, Ed448.
    /// Otherwise they are kty EC2 (2).
    public var isOKP: Bool {
        switch self {
        case .x25519, .x448, .ed25519, .ed448: return true
        default: return false
        }
    }

    /// Bytes in one coordinate (EC2 `x` or `y`, and the ECDSA `r` or `s`) or in an OKP key.
    public var coordinateSize: Int {
        switch self {
        case .p256: return 32
        case .p384: return 48
        case .p521: return 66
        case .x25519: return 32
        case .x448: return 56
        case .ed25519: return 32
        case .ed448: return 57
        case .brainpoolP256r1: return 32
        case .brainpoolP320r1: return 40
        case .brainpoolP384r1: return 48
        case .brainpoolP512r1: return 64
        }
    }

    /// Whether keys on this curve can do key agreement (ECDH or X25519/X448): all but Ed25519/Ed448.
    public var supportsKeyAgreement: Bool {
        self != .ed25519 && self != .ed448
    }

    /// Whether keys on this curve can sign: the EC2 curves (ECDSA) and Ed25519/Ed448 (EdDSA).
    public var supportsSigning: Bool {
        self != .x25519 && self != .x448
    }
}

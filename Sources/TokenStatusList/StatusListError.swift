import Zlib

/// Why a status reference, a Status List or a Status List Token was refused. Messages name
/// what is wrong and never carry the list's content, a claim value or a key.
public enum StatusListError: Error, Sendable, Equatable, CustomStringConvertible {
    /// A credential's `status` claim is not `{"status_list": {"idx", "uri"}}`.
    case malformedReference(String)
    /// The token is not a Status List Token of the expected form.
    case malformedToken(String)
    /// The token is larger than the limit.
    case tokenTooLarge(limit: Int)
    /// `bits` is not 1, 2, 4 or 8.
    case unsupportedBits(Int)
    /// The compressed list cannot be inflated (corrupt, or larger than the limit once inflated).
    case list(ZlibError)
    /// The referenced index is past the end of the list.
    case indexOutOfRange(index: UInt64, count: Int)
    /// The signature does not verify with the signer's key, or cannot be checked.
    case badSignature(String)
    /// The token carries no signer certificate (x5chain in the CWT's protected header, or x5c).
    case noSignerCertificate
    /// The signer certificate does not chain to the anchors that authenticated the issuer.
    case untrustedSigner(String)
    /// `sub` is not the URI the credential refers to.
    case subjectMismatch
    /// The token is not valid at the time of the check.
    case notYetValid
    case expired

    public var description: String {
        switch self {
        case .malformedReference(let reason): return "the credential's status reference is malformed: \(reason)"
        case .malformedToken(let reason): return "the status list token is malformed: \(reason)"
        case .tokenTooLarge(let limit): return "the status list token is larger than \(limit) bytes"
        case .unsupportedBits(let bits): return "the status list uses \(bits) bits per entry (1, 2, 4 or 8 allowed)"
        case .list(let error): return "the status list cannot be read: \(error)"
        case .indexOutOfRange(let index, let count):
            return "index \(index) is outside the status list (\(count) entries)"
        case .badSignature(let reason): return "the status list token's signature does not verify (\(reason))"
        case .noSignerCertificate:
            return "the status list token carries no signer certificate (x5chain / x5c)"
        case .untrustedSigner(let reason):
            return "the status list signer is not trusted: \(reason) (it must chain to the issuer's trust anchors)"
        case .subjectMismatch: return "the status list token's sub is not the URI the credential refers to"
        case .notYetValid: return "the status list token is not valid yet (iat is in the future)"
        case .expired: return "the status list token has expired (exp is past)"
        }
    }
}

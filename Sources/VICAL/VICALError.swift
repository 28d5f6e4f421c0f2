/// Why a VICAL was refused. Each case names what is wrong; nothing from a refused list is trusted.
public enum VICALError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The bytes are not a COSE_Sign1 carrying a payload.
    case notSigned(String)
    /// The payload is not the VICAL structure of ISO 18013-5 Annex C.1.7: says which field.
    case malformed(String)
    /// The x5chain is missing or a certificate in it does not parse.
    case signerCertificate(String)
    /// The signature does not verify with the x5chain leaf (or cannot be checked).
    case badSignature(String)
    /// The signer does not chain to a VICAL anchor at the verification time.
    case untrustedSigner(String)
    /// The signer certificate lacks the VICAL signer extended key usage.
    case signerNotForVICAL(subject: String)
    /// The verification time is past the list's nextUpdate.
    case expired(nextUpdate: String)
    /// The list is dated after the verification time.
    case notYetValid(date: String)

    public var description: String {
        switch self {
        case .notSigned(let s): return "the VICAL is not a signed COSE_Sign1: \(s)"
        case .malformed(let s): return "malformed VICAL: \(s)"
        case .signerCertificate(let s): return "VICAL signer certificate: \(s)"
        case .badSignature(let s): return "the VICAL signature does not verify: \(s)"
        case .untrustedSigner(let s):
            return "the VICAL signer is not trusted: \(s) (give the provider's root with --vical-anchor)"
        case .signerNotForVICAL(let subject):
            return "the VICAL signer \(subject) lacks the VICAL signer EKU \(VICAL.signerEKU)"
        case .expired(let next):
            return "the VICAL is past its nextUpdate \(next): get a current list (or pin the time with --at)"
        case .notYetValid(let date): return "the VICAL is dated \(date), after the verification time"
        }
    }
}

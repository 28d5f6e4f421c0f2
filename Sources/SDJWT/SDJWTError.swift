import FoundationEssentials
import JOSE

/// Why an SD-JWT (RFC 9901) could not be read, checked or presented.
///
/// Messages name the part and the rule that failed; they never carry a claim value, a salt,
/// a disclosure or a signature.
public enum SDJWTError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The compact form is not `<JWT>~<Disclosure>~...~[<KB-JWT>]`, or a part is not well formed.
    case malformed(String)
    /// A Disclosure is not base64url of a JSON array `[salt, name, value]` or `[salt, value]`,
    /// or it names a reserved claim (`_sd`, `...`).
    case invalidDisclosure(index: Int, reason: String)
    /// `_sd_alg` names a hash function this implementation does not use.
    case unsupportedHashAlgorithm(String)
    /// The Disclosures do not fit the payload (RFC 9901 section 7.1): a Disclosure no digest
    /// refers to, a digest found twice, a claim name that is already present, an array-element
    /// Disclosure in `_sd` or the other way round.
    case disclosureMismatch(String)
    /// The Key Binding JWT is missing, has the wrong `typ`, or does not bind this presentation
    /// (`sd_hash`, `aud`, `nonce`, `iat`).
    case keyBinding(String)
    /// The SD-JWT is not an issued SD-JWT VC: the text says what is missing or wrong.
    case notAnSDJWTVC(String)
    /// The issuer's signature or certificate chain does not verify against the trust anchors.
    case issuerNotTrusted(String)
    /// `exp` is before the time of the check.
    case expired(Date)
    /// `nbf` is after the time of the check.
    case notYetValid(Date)
    /// A JOSE step (parsing, signing, verifying) failed.
    case jose(JOSEError)
    /// The signer (a secure area, a key) refused to sign; the text says why, without secrets.
    case signing(String)

    public var description: String {
        switch self {
        case .malformed(let why): return "malformed SD-JWT: \(why)"
        case .invalidDisclosure(let index, let why): return "SD-JWT disclosure \(index): \(why)"
        case .unsupportedHashAlgorithm(let name):
            return "SD-JWT _sd_alg \(name) is not supported (sha-256, sha-384, sha-512 are)"
        case .disclosureMismatch(let why): return "SD-JWT disclosures do not match the issuer-signed JWT: \(why)"
        case .keyBinding(let why): return "SD-JWT key binding: \(why)"
        case .notAnSDJWTVC(let why): return "not an SD-JWT VC: \(why)"
        case .issuerNotTrusted(let why): return "SD-JWT VC issuer: \(why)"
        case .expired(let date): return "the SD-JWT VC expired at \(Int(date.timeIntervalSince1970)) (exp)"
        case .notYetValid(let date): return "the SD-JWT VC is not valid before \(Int(date.timeIntervalSince1970)) (nbf)"
        case .jose(let error): return "SD-JWT: \(error)"
        case .signing(let why): return "SD-JWT key binding could not be signed: \(why)"
        }
    }
}

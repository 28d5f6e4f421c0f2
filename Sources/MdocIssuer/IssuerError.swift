import COSE
import MdocCrypto

/// Why a test credential or test PKI could not be made. Messages name files, fields, element
/// identifiers and doc types, never claim values or key material.
public enum IssuerError: Error, Sendable, Equatable, CustomStringConvertible {
    /// An argument the issuer cannot use (the text says which and why).
    case invalidArgument(String)
    /// A claims file lacks mandatory elements of its doc type (identifiers listed).
    case missingMandatoryElements(docType: String, elements: [String])
    /// A claims file value of the wrong shape: `field` is its path, e.g.
    /// "driving_privileges[1].vehicle_category_code".
    case invalidClaim(field: String, reason: String)
    /// A claims file that is not well-formed JSON.
    case invalidJSON(String)
    /// A file that cannot be read or written.
    case file(path: String, reason: String)
    /// A key or certificate problem.
    case crypto(CryptoError)
    /// A certificate could not be built.
    case certificate(CertificateBuilderError)
    /// The issuerAuth signature could not be made.
    case cose(COSEError)

    public var description: String {
        switch self {
        case .invalidArgument(let reason): return reason
        case .missingMandatoryElements(let docType, let elements):
            return "the claims lack mandatory \(docType) elements: \(elements.joined(separator: ", "))"
        case .invalidClaim(let field, let reason): return "claim \(field): \(reason)"
        case .invalidJSON(let reason): return "the claims file is not valid JSON: \(reason)"
        case .file(let path, let reason): return "\(path): \(reason)"
        case .crypto(let error): return error.description
        case .certificate(let error): return error.description
        case .cose(let error): return error.description
        }
    }
}

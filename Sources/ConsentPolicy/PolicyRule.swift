import Consent
import MdocCrypto

/// Why a policy file could not be used.
public enum PolicyError: Error, Sendable, Equatable, CustomStringConvertible {
    case syntax(line: Int, String)
    case invalidRule(line: Int, String)
    case unreadable(path: String, String)

    public var description: String {
        switch self {
        case .syntax(let line, let s): return "policy file line \(line): \(s)"
        case .invalidRule(let line, let s): return "policy rule at line \(line): \(s)"
        case .unreadable(_, let s): return s
        }
    }
}

/// One policy rule: which readers, which doc type, which elements.
public struct PolicyRule: Sendable {
    public enum ReaderMatch: Sendable {
        /// A reader trusted by the configured reader roots.
        case trusted
        /// Any reader, authenticated or not.
        case any
        /// A reader whose valid signature and certificate chain lead to this anchor.
        case anchor(Certificate, path: String)
        /// Issuance only (`issuer = "https://..."`): an offer from this Credential Issuer.
        case issuer(String)
        /// Issuance only (`issuer = "any"`): an offer from any issuer (its TLS certificate
        /// verified, as always).
        case anyIssuer

        /// Whether the rule is about issuers (offers) rather than readers (requests).
        public var isIssuerRule: Bool {
            switch self {
            case .issuer, .anyIssuer: return true
            case .trusted, .any, .anchor: return false
            }
        }
    }

    public enum Allow: Sendable, Equatable {
        case all
        case elements(Set<ElementID>)
    }

    public var reader: ReaderMatch
    /// A doc type, or "*" for any.
    public var docType: String
    public var allow: Allow
    public var line: Int
}

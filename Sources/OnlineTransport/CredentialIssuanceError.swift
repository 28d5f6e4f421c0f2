import OpenID4VCI
import SecureArea
import Wallet

/// Why receiving credentials failed. Every case says what went wrong and what to do; none
/// carries a code, token, nonce, key or claim value.
public enum CredentialIssuanceError: Error, Sendable, CustomStringConvertible {
    /// The HTTPS client could not be set up.
    case setup(HTTPFetchError)
    /// An exchange with the issuer or its authorization server failed.
    case exchange(what: String, HTTPFetchError)
    /// The issuer answered with an HTTP status the protocol does not expect, without an OAuth
    /// error body.
    case unexpectedStatus(what: String, host: String, status: Int)
    /// The protocol went wrong (the offer, metadata, an answer, an OAuth error of the issuer).
    case protocolError(IssuanceError)
    /// A key could not be made or used in the secure area.
    case secureArea(SecureAreaError)
    /// The credential was received but our checks refused it (issuer data authentication,
    /// validity, docType, device key): nothing was stored.
    case refused(docType: String, WalletError, notified: Bool)
    /// The store could not be read or written.
    case store(WalletError)
    /// The transaction code could not be read.
    case transactionCodeUnavailable(String)

    public var description: String {
        switch self {
        case .setup(let error):
            return "the HTTPS client cannot be set up: \(error)"
        case .exchange(let what, let error):
            return "\(what) failed: \(error)"
        case .unexpectedStatus(let what, let host, let status):
            return "\(what): \(host) answered HTTP \(status)"
        case .protocolError(let error):
            return error.description
        case .secureArea(let error):
            return "the secure area cannot make or use the key: \(error)"
        case .refused(let docType, let error, let notified):
            return "the \(docType) credential the issuer sent was refused and nothing was stored: \(error)"
                + (notified ? " (the issuer was told: credential_failure)" : "")
        case .store(let error):
            return "\(error)"
        case .transactionCodeUnavailable(let why):
            return "the offer needs a transaction code: \(why)"
        }
    }
}

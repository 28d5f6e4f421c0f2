import JOSE
import PrintableText

/// An OAuth 2.0 error response (RFC 6749 section 5.2) as an issuer's token, nonce, credential,
/// deferred credential or notification endpoint sends it: `error` and an optional
/// `error_description` (some issuers send it as `description`).
public struct OAuthErrorResponse: Sendable, Equatable, CustomStringConvertible {
    /// The `error` code as sent (`invalid_grant`, `invalid_proof`, ...).
    public var error: String
    /// `error_description` (or, when absent, a `description` member), made printable
    /// (``RemoteText``) and cut to 300 characters.
    public var errorDescription: String?
    /// The refused request carried a transaction code (`tx_code`): whatever the code, the
    /// advice says it may be wrong.
    public var afterTransactionCode = false

    public init(error: String, errorDescription: String? = nil) {
        self.error = error
        self.errorDescription = errorDescription
    }

    /// Reads an error response body; nil when it is not a JSON object with a string `error`.
    public init?(body: [UInt8]) {
        guard let json = try? JSONValue(parsing: body), let error = json["error"]?.stringValue else { return nil }
        self.error = RemoteText.printable(error, limit: 64)
        let description = json["error_description"]?.stringValue ?? json["description"]?.stringValue
        self.errorDescription = description.map { RemoteText.printable($0, limit: 300) }
    }

    /// The transaction code (tx_code) was wrong: OpenID4VCI 1.0 section 6.3 says `invalid_grant`;
    /// earlier drafts sent `invalid_tx_code`.
    public var isWrongCode: Bool { error == "invalid_grant" || error == "invalid_tx_code" }

    /// The server wants a DPoP proof with its nonce (RFC 9449 sections 8 and 9).
    public var isUseDPoPNonce: Bool { error == "use_dpop_nonce" }

    /// What the user can do about the common codes.
    public var advice: String? {
        if afterTransactionCode {
            return
                "the transaction code may be wrong: check the code, or ask the issuer for a new offer"
        }
        switch error {
        case "invalid_grant", "invalid_tx_code":
            return
                "the offer's code or the transaction code is wrong or expired: check the code, or ask the issuer for a new offer"
        case "invalid_proof", "invalid_nonce":
            return "the issuer did not accept the key proof"
        case "invalid_credential_request", "invalid_request":
            return "the issuer did not accept the request"
        case "unsupported_credential_type", "unknown_credential_configuration", "unknown_credential_identifier":
            return "the issuer does not issue this credential to this holder"
        case "invalid_token":
            return "the access token was refused; start again with a new offer"
        case "access_denied":
            return "the issuer refused to issue"
        case "credential_request_denied":
            return "the issuer refused to issue this credential"
        case "issuance_pending":
            return "the credential is not ready yet"
        case "expired_transaction_id", "invalid_transaction_id":
            return "the pending issuance is over; ask the issuer for a new offer"
        default:
            return nil
        }
    }

    public var description: String {
        error + (errorDescription.map { ": \($0)" } ?? "")
    }
}

import OAuthWeb

/// A token request (RFC 6749 section 4.1.3 / OpenID4VCI 1.0 section 6.1), built as its form
/// body. Its fields are secrets: the body is sent, never printed.
public struct TokenRequest: Sendable {
    /// The form fields, in order.
    public var fields: [(name: String, value: String)]

    /// The pre-authorized code grant, with the transaction code when the offer asked for one.
    public static func preAuthorizedCode(_ code: String, transactionCode: String?) -> TokenRequest {
        var fields = [("grant_type", CredentialOffer.preAuthorizedGrantType), ("pre-authorized_code", code)]
        if let transactionCode { fields.append(("tx_code", transactionCode)) }
        return TokenRequest(fields: fields.map { (name: $0.0, value: $0.1) })
    }

    /// The authorization code grant with the PKCE verifier (RFC 7636 section 4.5).
    public static func authorizationCode(
        _ code: String, codeVerifier: String, redirectURI: String, clientID: String
    ) -> TokenRequest {
        TokenRequest(fields: [
            (name: "grant_type", value: "authorization_code"), (name: "code", value: code),
            (name: "code_verifier", value: codeVerifier), (name: "redirect_uri", value: redirectURI),
            (name: "client_id", value: clientID),
        ])
    }

    /// Whether the request carries a transaction code (`tx_code`).
    public var carriesTransactionCode: Bool { fields.contains { $0.name == "tx_code" } }

    /// `application/x-www-form-urlencoded`.
    public var body: String { FormEncoding.encode(fields) }
}

/// An OpenID4VP / OAuth 2.0 authorization error: the code the verifier receives in the
/// `error` response parameter and a description for `error_description`.
///
/// Descriptions name the parameter or the rule that failed; they never carry claim values,
/// nonces, keys or other request values, so they can be posted, logged and shown as they are.
public struct AuthorizationError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The error codes of RFC 6749 section 4.1.2.1, OpenID4VP 1.0 section 8.5 and RFC 9101
    /// section 6.2 that a wallet sends.
    public enum Code: String, Sendable, Hashable, CaseIterable {
        /// A parameter is missing, repeated, malformed or not allowed; the client identifier
        /// prefix is not supported, or its rules are broken.
        case invalidRequest = "invalid_request"
        /// `client_metadata` is present but the verifier is pre-registered with metadata.
        case invalidClient = "invalid_client"
        /// No credential satisfies the request, or the user declined.
        case accessDenied = "access_denied"
        /// A `response_type` other than `vp_token`.
        case unsupportedResponseType = "unsupported_response_type"
        /// A `scope` the wallet does not know (no scope maps to a DCQL query here).
        case invalidScope = "invalid_scope"
        /// None of the requested formats or algorithms is supported (mso_mdoc only here).
        case vpFormatsNotSupported = "vp_formats_not_supported"
        /// `request_uri_method` is neither `get` nor `post`.
        case invalidRequestURIMethod = "invalid_request_uri_method"
        /// `transaction_data` is present (no transaction data type is supported).
        case invalidTransactionData = "invalid_transaction_data"
        /// The Request Object is malformed, has the wrong `typ`, or its signature does not
        /// verify (RFC 9101).
        case invalidRequestObject = "invalid_request_object"
        /// The wallet failed internally.
        case serverError = "server_error"
    }

    public var code: Code
    /// For `error_description`: free of secrets and request values.
    public var description: String
    /// What only the holder's log and history get, never the verifier (which credential's device
    /// key could not be used, in which secure area).
    public var localDetail: String?

    public init(_ code: Code, _ description: String) {
        self.code = code
        self.description = description
    }

    static func invalidRequest(_ why: String) -> AuthorizationError { .init(.invalidRequest, why) }
    static func invalidRequestObject(_ why: String) -> AuthorizationError { .init(.invalidRequestObject, why) }
    static func accessDenied(_ why: String) -> AuthorizationError { .init(.accessDenied, why) }
}

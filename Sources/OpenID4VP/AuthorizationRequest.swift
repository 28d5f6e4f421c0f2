import FoundationEssentials
import JOSE

/// An OpenID4VP 1.0 Authorization Request for `vp_token` with Response Mode `direct_post` or
/// `direct_post.jwt`: the parameters a holder of mdocs uses, read and checked.
///
/// Reading checks the parameters alone; who sent them is checked by
/// ``RequestObjectVerifier``, which is the only way to a ``VerifiedAuthorizationRequest``.
public struct AuthorizationRequest: Sendable {
    /// The Response Modes this wallet answers with.
    public enum ResponseMode: String, Sendable, Hashable {
        /// Form-encoded POST of `vp_token` and `state` to `response_uri`.
        case directPost = "direct_post"
        /// The same parameters as a JWE, POSTed as `response`.
        case directPostJWT = "direct_post.jwt"
    }

    /// What is asked for.
    public enum Query: Sendable {
        /// OpenID4VP 1.0.
        case dcql(DCQLQuery)
        /// Before OpenID4VP 1.0 (ISO/IEC TS 18013-7 Annex B): DIF Presentation Exchange.
        case presentationDefinition(PresentationDefinition)
    }

    public var clientID: ClientIdentifier
    /// `response_type`: always `vp_token` once read.
    public var responseType: String
    public var responseMode: ResponseMode
    /// `response_uri`: an https URL.
    public var responseURI: String
    public var nonce: String
    public var state: String?
    public var query: Query
    public var clientMetadata: ClientMetadata?
    /// `wallet_nonce` (request_uri POST only).
    public var walletNonce: String?
    /// `exp` of a Request Object.
    public var expiresAt: Date?
    /// `nbf` of a Request Object.
    public var notBefore: Date?

    /// The DCQL query, or the Presentation Exchange request expressed as one.
    public var dcqlQuery: DCQLQuery {
        switch query {
        case .dcql(let q): return q
        case .presentationDefinition(let pd): return pd.dcqlQuery
        }
    }

    /// Whether this is a request of the drafts before OpenID4VP 1.0 (presentation_definition),
    /// answered with the ISO/IEC TS 18013-7 handover.
    public var isPreFinal: Bool {
        if case .presentationDefinition = query { return true }
        return false
    }

    /// The host of ``responseURI``.
    public var responseURIHost: String? { URLComponents(string: responseURI)?.host?.lowercased() }

    /// Reads the request parameters: from a URL's query (every value a string; JSON-valued
    /// parameters as JSON text) or from a Request Object's claims (JSON values).
    ///
    /// - Throws: the error OpenID4VP 1.0 section 8.5 names: `invalid_request` for a missing,
    ///   malformed or forbidden parameter, `unsupported_response_type`, `invalid_scope` for a
    ///   scope-only request, `invalid_transaction_data` when transaction data is present (no
    ///   type is supported), `vp_formats_not_supported` when nothing asked for is an mdoc.
    public init(parameters: [String: JSONValue]) throws(AuthorizationError) {
        let read = Parameters(parameters)
        clientID = try Self.clientIdentifier(parameters)
        responseType = try Self.responseType(read)
        responseMode = try Self.responseMode(read)
        responseURI = try Self.responseURI(read, clientID: clientID)
        guard let nonce = try read.string("nonce"), !nonce.isEmpty else { throw .invalidRequest("nonce is missing") }
        self.nonce = nonce
        state = try read.string("state")
        walletNonce = try read.string("wallet_nonce")
        try Self.refuseUnsupported(read)
        query = try Self.query(read, responseMode: responseMode)
        guard dcqlQuery.credentials.contains(where: { $0.isMdoc || $0.isSDJWT }) else {
            throw AuthorizationError(.vpFormatsNotSupported, "no credential query asks for mso_mdoc or dc+sd-jwt")
        }
        clientMetadata = try Self.clientMetadata(read)
        expiresAt = try read.date("exp")
        notBefore = try read.date("nbf")
    }

    /// `response_type`: `vp_token`, the only one answered.
    private static func responseType(_ read: Parameters) throws(AuthorizationError) -> String {
        guard let responseType = try read.string("response_type") else {
            throw .invalidRequest("response_type is missing")
        }
        guard responseType == "vp_token" else {
            throw AuthorizationError(.unsupportedResponseType, "only response_type vp_token is supported")
        }
        return responseType
    }

    /// `response_mode`, with which a `redirect_uri` has no place.
    private static func responseMode(_ read: Parameters) throws(AuthorizationError) -> ResponseMode {
        guard let mode = try read.string("response_mode") else { throw .invalidRequest("response_mode is missing") }
        guard let responseMode = ResponseMode(rawValue: mode) else {
            throw .invalidRequest("response_mode must be direct_post or direct_post.jwt")
        }
        guard read["redirect_uri"] == nil else {
            throw .invalidRequest("redirect_uri must not be present with response_mode \(mode)")
        }
        return responseMode
    }

    /// `response_uri`, an https URL; a `redirect_uri:` verifier may leave it out: it is then
    /// the client identifier.
    private static func responseURI(_ read: Parameters, clientID: ClientIdentifier) throws(AuthorizationError)
        -> String
    {
        let fallbackURI = clientID.prefix == .redirectURI ? clientID.value : nil
        guard let responseURI = try read.string("response_uri") ?? fallbackURI else {
            throw .invalidRequest("response_uri is missing")
        }
        guard let components = URLComponents(string: responseURI), components.scheme?.lowercased() == "https",
            let host = components.host, !host.isEmpty
        else { throw .invalidRequest("response_uri is not an https URL") }
        return responseURI
    }

    /// Parameters this wallet does not support, refused rather than ignored.
    private static func refuseUnsupported(_ read: Parameters) throws(AuthorizationError) {
        guard read["transaction_data"] == nil else {
            throw AuthorizationError(.invalidTransactionData, "transaction_data is not supported")
        }
        if read["presentation_definition_uri"] != nil {
            throw .invalidRequest("presentation_definition_uri is not supported")
        }
        if read["client_metadata_uri"] != nil {
            throw .invalidRequest("client_metadata_uri is not supported")
        }
    }

    /// Exactly one of `dcql_query` and `presentation_definition` (the latter only with
    /// `direct_post.jwt`); a `scope` alone maps to no query here.
    private static func query(_ read: Parameters, responseMode: ResponseMode) throws(AuthorizationError) -> Query {
        let dcql = try read.json("dcql_query")
        let definition = try read.json("presentation_definition")
        let scope = try read.string("scope")
        switch (dcql, definition) {
        case (let dcql?, nil):
            guard scope == nil else { throw .invalidRequest("both dcql_query and scope are present") }
            return .dcql(try DCQLQuery(json: dcql))
        case (nil, let definition?):
            let query = Query.presentationDefinition(try PresentationDefinition(json: definition))
            guard responseMode == .directPostJWT else {
                throw .invalidRequest("a presentation_definition request must use direct_post.jwt")
            }
            return query
        case (nil, nil):
            if scope != nil { throw AuthorizationError(.invalidScope, "no scope value maps to a query") }
            throw .invalidRequest("dcql_query is missing")
        case (_?, _?):
            throw .invalidRequest("both dcql_query and presentation_definition are present")
        }
    }

    /// `client_metadata`, refused when its `vp_formats_supported` lists no format answered here.
    private static func clientMetadata(_ read: Parameters) throws(AuthorizationError) -> ClientMetadata? {
        guard let json = try read.json("client_metadata") else { return nil }
        let metadata = try ClientMetadata(json: json)
        if metadata.hasVPFormats, metadata.mdocFormat == nil, !metadata.listsSDJWT {
            throw AuthorizationError(
                .vpFormatsNotSupported, "vp_formats_supported lists neither mso_mdoc nor dc+sd-jwt")
        }
        return metadata
    }

    /// `client_id`, with the prefix of a pre-1.0 `client_id_scheme` when it has none of its own.
    static func clientIdentifier(_ parameters: [String: JSONValue]) throws(AuthorizationError) -> ClientIdentifier {
        guard let clientID = parameters["client_id"]?.stringValue, !clientID.isEmpty else {
            throw .invalidRequest("client_id is missing or not a string")
        }
        let parsed = ClientIdentifier(clientID)
        guard let schemeValue = parameters["client_id_scheme"], parsed.prefix == .preRegistered else { return parsed }
        // Drafts before 1.0 sent the prefix apart.
        let legacy: [String: ClientIdentifier.Prefix] = [
            "x509_san_dns": .x509SanDNS, "redirect_uri": .redirectURI, "did": .decentralizedIdentifier,
            "verifier_attestation": .verifierAttestation, "pre-registered": .preRegistered,
        ]
        guard let scheme = schemeValue.stringValue, let prefix = legacy[scheme] else {
            throw .invalidRequest("client_id_scheme is not supported")
        }
        return ClientIdentifier(legacyClientID: clientID, scheme: prefix)
    }

    /// The request parameters, each read as the type it must have.
    private struct Parameters {
        let values: [String: JSONValue]

        init(_ values: [String: JSONValue]) {
            self.values = values
        }

        subscript(_ name: String) -> JSONValue? { values[name] }

        func string(_ name: String) throws(AuthorizationError) -> String? {
            guard let value = values[name] else { return nil }
            guard let s = value.stringValue else { throw .invalidRequest("\(name) is not a string") }
            return s
        }

        /// A JSON value, or JSON text in a string (a URL's query parameter).
        func json(_ name: String) throws(AuthorizationError) -> JSONValue? {
            guard let value = values[name] else { return nil }
            guard case .string(let text) = value else { return value }
            do {
                return try JSONValue(parsing: text)
            } catch {
                throw .invalidRequest("\(name) is not valid JSON")
            }
        }

        /// A Request Object's NumericDate.
        func date(_ name: String) throws(AuthorizationError) -> Date? {
            guard let value = values[name] else { return nil }
            guard let seconds = value.numberValue else { throw .invalidRequestObject("\(name) is not a number") }
            return Date(timeIntervalSince1970: seconds)
        }
    }
}

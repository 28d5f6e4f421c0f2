import Base64
import FoundationEssentials
import JOSE
import MdocCrypto
import OAuthWeb
import PrintableText

/// The authorization code flow of an offer (OpenID4VCI 1.0 section 5, RFC 6749 section 4.1,
/// PKCE, RFC 9126 pushed authorization requests): the request parameters, where they go, and
/// the check of the redirect that comes back.
public struct CodeAuthorization: Sendable {
    /// The holder's client identifier at the authorization server (a public client).
    public var clientID: String
    public var redirectURI: String
    /// `state`: random, checked on the redirect.
    public let state: String
    public let pkce: PKCE
    /// The offer's `issuer_state`, sent back.
    public var issuerState: String?
    /// One `authorization_details` entry of type `openid_credential` per configuration (when
    /// ``scopes`` is empty).
    public var configurationIDs: [String]
    /// The `scope` values to ask by instead of `authorization_details` (OpenID4VCI section
    /// 5.1.2); empty: ask with `authorization_details`. See ``scopes(for:server:)``.
    public var scopes: [String]
    /// The Credential Issuer Identifier when the authorization server is another host: the
    /// `locations` of the authorization details (OpenID4VCI section 5.1.1), or the `resource`
    /// of a request by scope (section 5.1.2, RFC 8707).
    public var credentialIssuer: String?

    public init(
        clientID: String, redirectURI: String, issuerState: String?, configurationIDs: [String],
        scopes: [String] = [], credentialIssuer: String? = nil, state: String? = nil, pkce: PKCE = PKCE()
    ) {
        self.clientID = clientID
        self.redirectURI = redirectURI
        self.issuerState = issuerState
        self.configurationIDs = configurationIDs
        self.scopes = scopes
        self.credentialIssuer = credentialIssuer
        self.state = state ?? Base64URL.encode(SecureRandom.bytes(16))
        self.pkce = pkce
    }

    /// The authorization request parameters, in order.
    public var parameters: [(name: String, value: String)] {
        var fields: [(name: String, value: String)] = [
            ("response_type", "code"), ("client_id", clientID), ("redirect_uri", redirectURI), ("state", state),
            ("code_challenge", pkce.challenge), ("code_challenge_method", PKCE.method),
        ]
        if scopes.isEmpty {
            let details: [JSONValue] = configurationIDs.map { id in
                var entry: [String: JSONValue] = [
                    "type": "openid_credential", "credential_configuration_id": .string(id),
                ]
                if let credentialIssuer { entry["locations"] = [.string(credentialIssuer)] }
                return .object(entry)
            }
            fields.append(("authorization_details", JSONValue.array(details).serializedString))
        } else {
            fields.append(("scope", scopes.joined(separator: " ")))
            if let credentialIssuer { fields.append(("resource", credentialIssuer)) }
        }
        if let issuerState { fields.append(("issuer_state", issuerState)) }
        return fields
    }

    /// The pushed authorization request body (RFC 9126 section 2.1).
    public var pushedRequestBody: String { FormEncoding.encode(parameters) }

    /// The URL the user opens: with PAR, only `client_id` and the `request_uri` the server gave
    /// (RFC 9126 section 4); without, every parameter in the query.
    public func authorizationURL(endpoint: String, requestURI: String?) throws(IssuanceError) -> String {
        guard let url = ParsedURL(endpoint), url.scheme == "https" else {
            throw .invalidMetadata("authorization_endpoint must be an https URL")
        }
        let query: String
        if let requestURI {
            query = FormEncoding.encode([("client_id", clientID), ("request_uri", requestURI)])
        } else {
            query = FormEncoding.encode(parameters)
        }
        return endpoint + (url.query == nil ? "?" : "&") + query
    }

    /// The `request_uri` of a pushed authorization response (RFC 9126 section 2.2).
    public static func pushedRequestURI(body: [UInt8]) throws(IssuanceError) -> String {
        guard let json = try? JSONValue(parsing: body), let uri = json["request_uri"]?.stringValue, !uri.isEmpty else {
            throw .invalidResponse(endpoint: "pushed authorization request endpoint", "request_uri is missing")
        }
        return uri
    }

    /// The code of the redirect's query (RFC 6749 section 4.1.2), after checking `state` and,
    /// when present, `iss` (RFC 9207).
    ///
    /// - Throws: the authorization server's error (``IssuanceError/issuer(endpoint:_:)``; its
    ///   endpoint says "not verified" when `state` or `iss` is missing or not ours: servers send
    ///   errors without `state`), or ``IssuanceError/invalidResponse(endpoint:_:)`` for a success
    ///   redirect with a wrong state or issuer, or no code.
    public func code(fromRedirectQuery query: String, authorizationServer: String) throws(IssuanceError) -> String {
        guard let pairs = FormEncoding.decode(query) else {
            throw .invalidResponse(endpoint: "authorization redirect", "its query is not validly encoded")
        }
        var fields: [String: String] = [:]
        for (name, value) in pairs {
            guard fields.updateValue(value, forKey: name) == nil else {
                throw .invalidResponse(endpoint: "authorization redirect", "\(name) appears more than once")
            }
        }
        let issuerMatches = fields["iss"].map { IssuerIdentifier.same($0, authorizationServer) } ?? true
        if let error = fields["error"] {
            let verified = fields["state"] == state && issuerMatches
            throw .issuer(
                endpoint: verified ? "authorization endpoint" : Self.unverifiedErrorEndpoint,
                OAuthErrorResponse(
                    error: RemoteText.printable(error, limit: 64),
                    errorDescription: fields["error_description"].map { RemoteText.printable($0, limit: 300) }))
        }
        guard fields["state"] == state else {
            throw .invalidResponse(endpoint: "authorization redirect", "state is not the one sent (a forged redirect?)")
        }
        guard issuerMatches else {
            throw .invalidResponse(endpoint: "authorization redirect", "iss is not the authorization server")
        }
        guard let code = fields["code"], !code.isEmpty else {
            throw .invalidResponse(endpoint: "authorization redirect", "it has no code")
        }
        return code
    }

    /// Where an error redirect whose `state` (or `iss`) is missing or not ours comes from, as the
    /// message says it: anyone could have sent it, so it is shown but not trusted.
    static let unverifiedErrorEndpoint =
        "authorization endpoint (in a redirect not verified: its state or iss is missing or not the one sent)"
}

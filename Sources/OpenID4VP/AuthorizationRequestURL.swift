import FoundationEssentials
import JOSE
import OAuthWeb

/// What the link or QR code of an OpenID4VP request carries (OpenID4VP 1.0 section 5 and
/// RFC 9101): the request by value, a Request Object by value, or a reference to fetch.
public enum AuthorizationRequestURL: Sendable {
    /// Plain parameters. Not yet verified: pass to ``RequestObjectVerifier/verify(unsigned:at:)``.
    case byValue(AuthorizationRequest)
    /// `request`: a Request Object (JWT) by value, with the URL's `client_id`. Verify with
    /// ``RequestObjectVerifier/verify(requestObject:clientID:walletNonce:at:)``.
    case requestObject(String, clientID: String)
    /// `request_uri`: fetch the Request Object with `method`, then verify it as above (with
    /// the `wallet_nonce` sent, for POST).
    case byReference(uri: String, method: RequestURIMethod, clientID: String)

    /// `request_uri_method`.
    public enum RequestURIMethod: String, Sendable, Hashable {
        case get
        case post
    }

    /// The URL schemes a request may come with: custom schemes of OpenID4VP 1.0, HAIP and
    /// ISO/IEC TS 18013-7, and https (universal links).
    public static let schemes: Set<String> = [
        "openid4vp", "haip-vp", "haip", "mdoc-openid4vp", "eudi-openid4vp", "https",
    ]

    /// Parses a request URL.
    ///
    /// - Throws: `invalid_request` for another scheme, a malformed or repeated parameter, a
    ///   missing `client_id`, both `request` and `request_uri`, a `request_uri` that is not
    ///   https, or `request_uri_method` without `request_uri`;
    ///   `invalid_request_uri_method` for a `request_uri_method` other than get and post; the
    ///   errors of ``AuthorizationRequest/init(parameters:)`` for a request by value.
    public init(_ text: String) throws(AuthorizationError) {
        guard let colon = text.firstIndex(of: ":") else { throw .invalidRequest("the request URL has no scheme") }
        let scheme = text[..<colon].lowercased()
        guard Self.schemes.contains(scheme) else {
            throw .invalidRequest("URL scheme \(scheme) is not an OpenID4VP one")
        }
        if scheme == "https" {
            guard let components = URLComponents(string: text), let host = components.host, !host.isEmpty else {
                throw .invalidRequest("the https request URL has no host")
            }
        }
        let afterScheme = text[text.index(after: colon)...]
        let beforeFragment = afterScheme.split(separator: "#", maxSplits: 1, omittingEmptySubsequences: false)[0]
        guard let question = beforeFragment.firstIndex(of: "?") else {
            throw .invalidRequest("the request URL has no query")
        }
        guard let pairs = FormEncoding.decode(beforeFragment[beforeFragment.index(after: question)...]) else {
            throw .invalidRequest("the request URL query is not percent-encoded UTF-8")
        }
        var parameters: [String: String] = [:]
        for (name, value) in pairs {
            guard parameters.updateValue(value, forKey: name) == nil else {
                throw .invalidRequest("parameter \(Self.safeName(name)) is repeated")
            }
        }
        try self.init(parameters: parameters)
    }

    /// The same from already-split query parameters.
    public init(parameters: [String: String]) throws(AuthorizationError) {
        let method = parameters["request_uri_method"]
        if let method, RequestURIMethod(rawValue: method) == nil {
            throw AuthorizationError(.invalidRequestURIMethod, "request_uri_method must be get or post")
        }
        switch (parameters["request"], parameters["request_uri"]) {
        case (_?, _?):
            throw .invalidRequest("both request and request_uri are present")
        case (let jwt?, nil):
            guard method == nil else { throw .invalidRequest("request_uri_method without request_uri") }
            self = .requestObject(jwt, clientID: try Self.clientID(parameters))
        case (nil, let uri?):
            guard let components = URLComponents(string: uri), components.scheme?.lowercased() == "https",
                components.host?.isEmpty == false
            else { throw .invalidRequest("request_uri is not an https URL") }
            self = .byReference(
                uri: uri, method: method.flatMap(RequestURIMethod.init(rawValue:)) ?? .get,
                clientID: try Self.clientID(parameters))
        case (nil, nil):
            guard method == nil else { throw .invalidRequest("request_uri_method without request_uri") }
            self = .byValue(try AuthorizationRequest(parameters: parameters.mapValues { .string($0) }))
        }
    }

    private static func clientID(_ parameters: [String: String]) throws(AuthorizationError) -> String {
        guard let clientID = parameters["client_id"], !clientID.isEmpty else {
            throw .invalidRequest("client_id is missing")
        }
        return clientID
    }

    /// A parameter name for an error text: known names only.
    private static func safeName(_ name: String) -> String {
        let known: Set<String> = [
            "client_id", "request", "request_uri", "request_uri_method", "response_type", "response_mode",
            "response_uri", "nonce", "state", "dcql_query", "client_metadata", "presentation_definition", "scope",
        ]
        return known.contains(name) ? name : "(unknown)"
    }
}

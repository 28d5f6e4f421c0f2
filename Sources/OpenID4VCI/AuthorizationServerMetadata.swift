import JOSE
import OAuthWeb

/// OAuth 2.0 Authorization Server Metadata (RFC 8414; OpenID Connect Discovery as a fallback):
/// the endpoints and features the issuance flow needs.
public struct AuthorizationServerMetadata: Sendable, Equatable {
    public static let wellKnownSuffix = "oauth-authorization-server"

    /// `issuer`: must be the identifier the metadata was fetched for (RFC 8414 section 3.3).
    public var issuer: String
    public var tokenEndpoint: String
    public var authorizationEndpoint: String?
    /// `pushed_authorization_request_endpoint` (RFC 9126).
    public var pushedAuthorizationRequestEndpoint: String?
    /// `require_pushed_authorization_requests`.
    public var requirePushedAuthorizationRequests: Bool
    /// `dpop_signing_alg_values_supported` (RFC 9449 section 5.1): DPoP is used when present.
    public var dpopSigningAlgorithms: [String]
    /// `code_challenge_methods_supported`.
    public var codeChallengeMethods: [String]
    /// `pre-authorized_grant_anonymous_access_supported` (OpenID4VCI section 12.3).
    public var preAuthorizedAnonymousAccess: Bool
    /// `authorization_details_types_supported` (RFC 9396 section 10): the holder asks with
    /// `authorization_details` when it lists `openid_credential`.
    public var authorizationDetailsTypes: [String]

    /// - Throws: ``IssuanceError/invalidMetadata(_:)``.
    public init(body: [UInt8], issuer: String) throws(IssuanceError) {
        let json = try JSONValue(parsing: body) { error in
            IssuanceError.invalidMetadata("the authorization server metadata is not JSON (\(error))")
        }
        guard json.objectValue != nil else {
            throw .invalidMetadata("the authorization server metadata is not an object")
        }
        guard let declared = json["issuer"]?.stringValue,
            IssuerIdentifier.same(declared, issuer)
        else {
            throw .invalidMetadata("the authorization server metadata's issuer is not the server it was fetched from")
        }
        self.issuer = declared
        tokenEndpoint = try Metadata.requiredURL(json, "token_endpoint")
        authorizationEndpoint = try Metadata.url(json, "authorization_endpoint")
        pushedAuthorizationRequestEndpoint = try Metadata.url(json, "pushed_authorization_request_endpoint")
        requirePushedAuthorizationRequests = json["require_pushed_authorization_requests"]?.boolValue ?? false
        dpopSigningAlgorithms = Metadata.strings(json, "dpop_signing_alg_values_supported")
        codeChallengeMethods = Metadata.strings(json, "code_challenge_methods_supported")
        preAuthorizedAnonymousAccess = json["pre-authorized_grant_anonymous_access_supported"]?.boolValue ?? false
        authorizationDetailsTypes = Metadata.strings(json, "authorization_details_types_supported")
    }

    /// Whether DPoP proofs go with token and credential requests (ES256 is what the holder
    /// makes).
    public var usesDPoP: Bool { !dpopSigningAlgorithms.isEmpty }

    /// Whether the server says it takes `authorization_details` of type `openid_credential`
    /// (OpenID4VCI 1.0 section 5.1.1).
    public var takesCredentialAuthorizationDetails: Bool { authorizationDetailsTypes.contains("openid_credential") }
}

import JOSE

/// A successful token response (RFC 6749 section 5.1, OpenID4VCI 1.0 section 6.2).
///
/// `description` never shows the token.
public struct TokenResponse: Sendable, CustomStringConvertible {
    /// `access_token`: a secret.
    public var accessToken: String
    /// `token_type`: `Bearer` or `DPoP` (RFC 9449 section 5).
    public var tokenType: String
    public var expiresIn: Int?
    /// `authorization_details` of type `openid_credential`: configuration ID to the
    /// `credential_identifiers` the issuer wants in credential requests.
    public var credentialIdentifiers: [String: [String]]

    /// A token kept for a pending deferred issuance.
    public init(accessToken: String, tokenType: String) {
        self.accessToken = accessToken
        self.tokenType = tokenType.lowercased() == "dpop" ? "DPoP" : "Bearer"
        expiresIn = nil
        credentialIdentifiers = [:]
    }

    /// - Throws: ``IssuanceError/invalidResponse(endpoint:_:)`` naming the member.
    public init(body: [UInt8]) throws(IssuanceError) {
        let json = try JSONValue(parsing: body) { _ in
            IssuanceError.invalidResponse(endpoint: "token endpoint", "it is not JSON")
        }
        guard let token = json["access_token"]?.stringValue, !token.isEmpty else {
            throw .invalidResponse(endpoint: "token endpoint", "access_token is missing")
        }
        guard let type = json["token_type"]?.stringValue else {
            throw .invalidResponse(endpoint: "token endpoint", "token_type is missing")
        }
        guard type.lowercased() == "bearer" || type.lowercased() == "dpop" else {
            throw .invalidResponse(
                endpoint: "token endpoint", "token_type \(type.prefix(20)) is neither Bearer nor DPoP")
        }
        accessToken = token
        tokenType = type.lowercased() == "dpop" ? "DPoP" : "Bearer"
        expiresIn = json["expires_in"]?.intValue
        var identifiers: [String: [String]] = [:]
        for detail in json["authorization_details"]?.arrayValue ?? [] {
            guard detail["type"]?.stringValue == "openid_credential",
                let configuration = detail["credential_configuration_id"]?.stringValue
            else { continue }
            guard let ids = detail["credential_identifiers"]?.arrayValue?.compactMap(\.stringValue), !ids.isEmpty
            else {
                throw .invalidResponse(
                    endpoint: "token endpoint",
                    "authorization_details has no credential_identifiers for \(configuration)")
            }
            identifiers[configuration, default: []] += ids
        }
        credentialIdentifiers = identifiers
    }

    /// Whether the token is DPoP-bound.
    public var isDPoP: Bool { tokenType == "DPoP" }

    /// The `Authorization` header value of resource requests.
    public var authorization: String { "\(tokenType) \(accessToken)" }

    public var description: String { "TokenResponse(\(tokenType), expires in \(expiresIn.map(String.init) ?? "-") s)" }
}

/// The nonce endpoint's answer (OpenID4VCI 1.0 section 7.2): `c_nonce`.
public struct NonceResponse: Sendable {
    /// A secret-ish value: never printed.
    public var cNonce: String

    public init(body: [UInt8]) throws(IssuanceError) {
        guard let json = try? JSONValue(parsing: body), let nonce = json["c_nonce"]?.stringValue, !nonce.isEmpty else {
            throw .invalidResponse(endpoint: "nonce endpoint", "c_nonce is missing")
        }
        cNonce = nonce
    }
}

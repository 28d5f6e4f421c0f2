import JOSE
import Testing

@testable import OpenID4VCI

/// Asking by `scope` or by `authorization_details` (OpenID4VCI 1.0 sections 5.1.1, 5.1.2), and
/// error redirects (RFC 6749 section 4.1.2.1) with and without our `state`.
@Suite struct AuthorizationByScopeTests {
    static func server(types: String?) throws -> AuthorizationServerMetadata {
        let listed = types.map { #","authorization_details_types_supported":\#($0)"# } ?? ""
        let body = #"{"issuer":"https://as.example","token_endpoint":"https://as.example/token"\#(listed)}"#
        return try AuthorizationServerMetadata(body: Array(body.utf8), issuer: "https://as.example")
    }

    static func configuration(_ id: String, scope: String?) -> CredentialConfiguration {
        CredentialConfiguration(id: id, format: "mso_mdoc", docType: "org.iso.18013.5.1.mDL", scope: scope)
    }

    static let mdl = configuration("mdl", scope: "org.iso.18013.5.1.mDL")
    static let pid = configuration("pid", scope: "eu.europa.ec.eudi.pid.1")

    @Test func readsTheAuthorizationDetailsTypes() throws {
        #expect(try Self.server(types: #"["openid_credential"]"#).takesCredentialAuthorizationDetails)
        #expect(try !Self.server(types: #"["payment_initiation"]"#).takesCredentialAuthorizationDetails)
        #expect(try !Self.server(types: nil).takesCredentialAuthorizationDetails)
    }

    @Test func asksByScopeWhenTheServerDoesNotListOpenIDCredential() throws {
        #expect(
            CodeAuthorization.scopes(for: [Self.mdl], server: try Self.server(types: nil)) == ["org.iso.18013.5.1.mDL"])
        #expect(
            CodeAuthorization.scopes(for: [Self.mdl, Self.pid, Self.mdl], server: try Self.server(types: #"["x"]"#))
                == ["org.iso.18013.5.1.mDL", "eu.europa.ec.eudi.pid.1"])
    }

    @Test func usesAuthorizationDetailsWhereTheyAreSupportedOrNoScopeIsThere() throws {
        #expect(
            CodeAuthorization.scopes(for: [Self.mdl], server: try Self.server(types: #"["openid_credential"]"#)) == [])
        let unscoped = Self.configuration("other", scope: nil)
        #expect(CodeAuthorization.scopes(for: [Self.mdl, unscoped], server: try Self.server(types: nil)) == [])
        #expect(CodeAuthorization.scopes(for: [], server: try Self.server(types: nil)) == [])
    }

    static func authorization(scopes: [String], credentialIssuer: String?) -> CodeAuthorization {
        CodeAuthorization(
            clientID: "mdoc-holder", redirectURI: "http://127.0.0.1:4000/callback", issuerState: nil,
            configurationIDs: ["mdl"], scopes: scopes, credentialIssuer: credentialIssuer,
            state: "state-123456789012")
    }

    @Test func aRequestByScopeNamesTheResourceOfAnotherServerAndNoDetails() {
        let fields = Dictionary(
            uniqueKeysWithValues: Self.authorization(
                scopes: ["a", "b"], credentialIssuer: "https://issuer.example"
            ).parameters.map { ($0.name, $0.value) })
        #expect(fields["scope"] == "a b")
        #expect(fields["resource"] == "https://issuer.example")
        #expect(fields["authorization_details"] == nil)
        #expect(fields["code_challenge_method"] == "S256")
        let same = Self.authorization(scopes: ["a"], credentialIssuer: nil).parameters.map(\.name)
        #expect(same.contains("scope") && !same.contains("resource") && !same.contains("authorization_details"))
    }

    @Test func aRequestByDetailsHasNoScope() throws {
        let fields = Dictionary(
            uniqueKeysWithValues: Self.authorization(scopes: [], credentialIssuer: "https://issuer.example")
                .parameters.map { ($0.name, $0.value) })
        #expect(fields["scope"] == nil && fields["resource"] == nil)
        let details = try JSONValue(parsing: try #require(fields["authorization_details"]))
        #expect(
            details == [
                [
                    "type": "openid_credential", "credential_configuration_id": "mdl",
                    "locations": ["https://issuer.example"],
                ]
            ])
    }

    @Test func anErrorRedirectIsShownAndMarkedWhenItsStateIsNotOurs() {
        let authorization = Self.authorization(scopes: [], credentialIssuer: nil)
        let error = OAuthErrorResponse(error: "server_error", errorDescription: "no such thing")
        let unverified =
            "authorization endpoint (in a redirect not verified: its state or iss is missing or not the one sent)"
        for query in [
            "error=server_error&error_description=no%20such%20thing",
            "error=server_error&error_description=no%20such%20thing&state=other",
            "error=server_error&error_description=no%20such%20thing&state=state-123456789012&iss=https%3A%2F%2Fevil.example",
        ] {
            #expect(throws: IssuanceError.issuer(endpoint: unverified, error)) {
                try authorization.code(fromRedirectQuery: query, authorizationServer: "https://as.example")
            }
        }
        #expect(throws: IssuanceError.issuer(endpoint: "authorization endpoint", error)) {
            try authorization.code(
                fromRedirectQuery: "error=server_error&error_description=no%20such%20thing&state=state-123456789012",
                authorizationServer: "https://as.example")
        }
        do {
            _ = try authorization.code(
                fromRedirectQuery: "error=x%1B%5B2J&error_description=" + String(repeating: "d", count: 400),
                authorizationServer: "https://as.example")
            Issue.record("an error redirect gave a code")
        } catch {
            guard case .issuer(let endpoint, let shown) = error else {
                Issue.record("\(error)")
                return
            }
            #expect(endpoint == unverified)
            #expect(!shown.error.unicodeScalars.contains("\u{1B}") && shown.error.hasPrefix("x"))
            #expect((shown.errorDescription?.count ?? 0) <= 300 && shown.errorDescription?.hasPrefix("ddd") == true)
        }
    }
}

import Foundation
import JOSE
import MdocCrypto
import OAuthWeb
import Testing
@testable import OpenID4VCI

@Suite struct CodeAuthorizationTests {
    static func authorization(state: String = "state-123456789012") -> CodeAuthorization {
        CodeAuthorization(
            clientID: "mdoc-holder", redirectURI: "http://127.0.0.1:4000/callback", issuerState: "is-1",
            configurationIDs: ["mdl"], state: state,
            pkce: PKCE(verifier: "dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk"))
    }

    @Test func thePKCEChallengeIsTheRFC7636Example() {
        // RFC 7636 appendix B.
        #expect(
            PKCE(verifier: "dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk").challenge
                == "E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM")
        #expect(PKCE().verifier.count == 43)
        #expect(PKCE().verifier != PKCE().verifier)
        #expect(!PKCE(verifier: "secret-verifier-value-xxxxxxxxxxxxxxxxxxxxx").description.contains("secret"))
    }

    @Test func theRequestCarriesPKCEStateDetailsAndIssuerState() throws {
        let fields = Dictionary(uniqueKeysWithValues: Self.authorization().parameters.map { ($0.name, $0.value) })
        #expect(fields["response_type"] == "code")
        #expect(fields["client_id"] == "mdoc-holder")
        #expect(fields["redirect_uri"] == "http://127.0.0.1:4000/callback")
        #expect(fields["code_challenge"] == "E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM")
        #expect(fields["code_challenge_method"] == "S256")
        #expect(fields["issuer_state"] == "is-1")
        #expect(fields["state"] == "state-123456789012")
        let details = try JSONValue(parsing: try #require(fields["authorization_details"]))
        #expect(details == [["type": "openid_credential", "credential_configuration_id": "mdl"]])
        #expect(fields["code_verifier"] == nil)
    }

    @Test func withPARTheURLCarriesOnlyClientAndRequestURI() throws {
        let url = try Self.authorization().authorizationURL(
            endpoint: "https://as.example/authorize", requestURI: "urn:ietf:params:oauth:request_uri:x")
        #expect(
            url
                == "https://as.example/authorize?client_id=mdoc-holder&request_uri=urn%3Aietf%3Aparams%3Aoauth%3Arequest_uri%3Ax"
        )
        let plain = try Self.authorization().authorizationURL(
            endpoint: "https://as.example/authorize?x=1", requestURI: nil)
        #expect(plain.hasPrefix("https://as.example/authorize?x=1&response_type=code&"))
        #expect(throws: IssuanceError.self) {
            try Self.authorization().authorizationURL(endpoint: "http://as.example/authorize", requestURI: nil)
        }
    }

    @Test func readsThePushedRequestURI() throws {
        #expect(
            try CodeAuthorization.pushedRequestURI(body: Array(#"{"request_uri":"urn:x","expires_in":60}"#.utf8))
                == "urn:x")
        #expect(throws: IssuanceError.self) { try CodeAuthorization.pushedRequestURI(body: Array("{}".utf8)) }
    }

    @Test func theRedirectGivesTheCodeOnlyWithOurStateAndIssuer() throws {
        let authorization = Self.authorization()
        #expect(
            try authorization.code(
                fromRedirectQuery: "code=c1&state=state-123456789012&iss=https%3A%2F%2Fas.example",
                authorizationServer: "https://as.example") == "c1")
        #expect(
            throws: IssuanceError.invalidResponse(
                endpoint: "authorization redirect", "state is not the one sent (a forged redirect?)")
        ) {
            try authorization.code(fromRedirectQuery: "code=c1&state=other", authorizationServer: "https://as.example")
        }
        #expect(
            throws: IssuanceError.invalidResponse(
                endpoint: "authorization redirect", "iss is not the authorization server")
        ) {
            try authorization.code(
                fromRedirectQuery: "code=c1&state=state-123456789012&iss=https%3A%2F%2Fevil.example",
                authorizationServer: "https://as.example")
        }
        #expect(
            throws: IssuanceError.issuer(
                endpoint: "authorization endpoint", OAuthErrorResponse(error: "access_denied", errorDescription: "no"))
        ) {
            try authorization.code(
                fromRedirectQuery: "error=access_denied&error_description=no&state=state-123456789012",
                authorizationServer: "https://as.example")
        }
    }

    @Test func theTokenRequestCarriesTheVerifier() {
        let fields = Dictionary(
            uniqueKeysWithValues: FormEncoding.decode(
                TokenRequest.authorizationCode(
                    "c1", codeVerifier: "v", redirectURI: "http://127.0.0.1:1/cb", clientID: "mdoc-holder"
                ).body)!.map { ($0.name, $0.value) })
        #expect(
            fields == [
                "grant_type": "authorization_code", "code": "c1", "code_verifier": "v",
                "redirect_uri": "http://127.0.0.1:1/cb", "client_id": "mdoc-holder",
            ])
    }
}

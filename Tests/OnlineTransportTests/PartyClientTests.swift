import Foundation
import OnlineTransport
import Testing

/// What the issuer and verifier clients read from answers without a network: the OAuth error
/// of a `WWW-Authenticate` header, the `redirect_uri` a verifier sends the user on to.
@Suite struct PartyClientTests {
    static func answer(_ json: String, status: Int = 200) -> HTTPResponse {
        HTTPResponse(host: "verifier.example", status: status, contentType: "application/json", body: Array(json.utf8))
    }

    @Test func theErrorCodeOfAWWWAuthenticateHeaderIsRead() {
        #expect(
            IssuerClient.wwwAuthenticateError(#"DPoP error="use_dpop_nonce", error_description="fresh nonce""#)
                == "use_dpop_nonce")
        #expect(IssuerClient.wwwAuthenticateError(#"Bearer error="invalid_token""#) == "invalid_token")
        #expect(IssuerClient.wwwAuthenticateError(#"Bearer realm="issuer""#) == nil)
        #expect(IssuerClient.wwwAuthenticateError(#"Bearer error="unterminated"#) == nil)
    }

    @Test func anErrorCodeFromTheHeaderIsMadePrintableAndBounded() throws {
        let code = try #require(
            IssuerClient.wwwAuthenticateError("Bearer error=\"bad\u{1B}[31m\(String(repeating: "x", count: 200))\""))
        #expect(!code.unicodeScalars.contains { $0.value < 0x20 })
        #expect(code.count <= 64)
    }

    @Test func aPlausibleRedirectURIIsKeptAndAnythingElseDropped() {
        #expect(
            VerifierClient.redirectURI(in: Self.answer(#"{"redirect_uri":"https://verifier.example/done?x=1"}"#))
                == "https://verifier.example/done?x=1")
        #expect(VerifierClient.redirectURI(in: Self.answer(#"{"redirect_uri":"https://verifier.example/a b"}"#)) == nil)
        #expect(VerifierClient.redirectURI(in: Self.answer(#"{"redirect_uri":"no scheme"}"#)) == nil)
        #expect(VerifierClient.redirectURI(in: Self.answer(#"{"other":1}"#)) == nil)
        #expect(VerifierClient.redirectURI(in: Self.answer("not json")) == nil)
        let long = "https://verifier.example/" + String(repeating: "a", count: 5000)
        #expect(VerifierClient.redirectURI(in: Self.answer(#"{"redirect_uri":"\#(long)"}"#)) == nil)
    }

    @Test func aRequestURIMustBeHTTPS() {
        #expect(throws: OnlinePresentationError.self) { try VerifierClient.host(of: "http://verifier.example/r") }
        #expect((try? VerifierClient.host(of: "https://verifier.example/r")) == "verifier.example")
    }
}

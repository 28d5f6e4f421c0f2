import Foundation
import JOSE
import Testing

@testable import OpenID4VCI

@Suite struct TokenAndCredentialTests {
    @Test func buildsThePreAuthorizedTokenRequest() {
        let body = TokenRequest.preAuthorizedCode("a b&c", transactionCode: "1234").body
        #expect(
            body
                == "grant_type=urn%3Aietf%3Aparams%3Aoauth%3Agrant-type%3Apre-authorized_code&pre-authorized_code=a+b%26c&tx_code=1234"
        )
        #expect(!TokenRequest.preAuthorizedCode("x", transactionCode: nil).body.contains("tx_code"))
    }

    @Test func readsATokenResponseWithCredentialIdentifiers() throws {
        let body =
            #"{"access_token":"secret-token","token_type":"DPoP","expires_in":300,"authorization_details":[{"type":"openid_credential","credential_configuration_id":"mdl","credential_identifiers":["mdl-1","mdl-2"]}]}"#
        let token = try TokenResponse(body: Array(body.utf8))
        #expect(token.isDPoP)
        #expect(token.authorization == "DPoP secret-token")
        #expect(token.credentialIdentifiers == ["mdl": ["mdl-1", "mdl-2"]])
        #expect(!token.description.contains("secret-token"))
    }

    @Test func refusesATokenResponseWithoutToken() {
        #expect(throws: IssuanceError.invalidResponse(endpoint: "token endpoint", "access_token is missing")) {
            try TokenResponse(body: Array(#"{"token_type":"Bearer"}"#.utf8))
        }
    }

    @Test func buildsACredentialRequestByConfigurationOrIdentifier() throws {
        let byConfiguration = try JSONValue(
            parsing: CredentialRequest(target: .configuration("mdl"), jwtProofs: ["p1", "p2"]).body)
        #expect(byConfiguration == ["credential_configuration_id": "mdl", "proofs": ["jwt": ["p1", "p2"]]])
        let byIdentifier = try JSONValue(
            parsing: CredentialRequest(target: .identifier("mdl-1"), jwtProofs: ["p"]).body)
        #expect(byIdentifier["credential_identifier"] == "mdl-1")
        #expect(byIdentifier["credential_configuration_id"] == nil)
    }

    @Test func readsImmediateAndDeferredCredentialResponses() throws {
        let issued = try CredentialResponse(
            body: Array(#"{"credentials":[{"credential":"AAA"},{"credential":"BBB"}],"notification_id":"n1"}"#.utf8))
        #expect(issued == .issued(credentials: ["AAA", "BBB"], notificationID: "n1"))
        let deferred = try CredentialResponse(body: Array(#"{"transaction_id":"t1","interval":5}"#.utf8))
        #expect(deferred == .deferred(transactionID: "t1", interval: 5))
        #expect(throws: IssuanceError.self) { try CredentialResponse(body: Array(#"{"credentials":[]}"#.utf8)) }
        #expect(throws: IssuanceError.self) { try CredentialResponse(body: Array(#"{"transaction_id":"t"}"#.utf8)) }
    }

    @Test func buildsTheDeferredCredentialRequest() throws {
        #expect(
            try JSONValue(parsing: DeferredCredentialRequest(transactionID: "t-1").body) == ["transaction_id": "t-1"])
    }

    @Test func aKeptTokenIsBearerOrDPoP() {
        #expect(TokenResponse(accessToken: "a", tokenType: "dpop").authorization == "DPoP a")
        #expect(TokenResponse(accessToken: "a", tokenType: "Bearer").authorization == "Bearer a")
    }

    @Test func buildsNotifications() throws {
        let body = try JSONValue(
            parsing: NotificationRequest(
                notificationID: "n1", event: .credentialFailure, eventDescription: "refus\u{E9}\u{7}d"
            ).body)
        #expect(body == ["notification_id": "n1", "event": "credential_failure", "event_description": "refusd"])
    }

    @Test func readsOAuthErrorsAndNamesWhatToDo() throws {
        let error = try #require(
            OAuthErrorResponse(body: Array(#"{"error":"invalid_grant","error_description":"wrong tx_code"}"#.utf8)))
        #expect(error.isWrongCode)
        #expect(error.description == "invalid_grant: wrong tx_code")
        #expect(IssuanceError.issuer(endpoint: "token endpoint", error).description.contains("check the code"))
        #expect(OAuthErrorResponse(body: Array("<html>".utf8)) == nil)
        #expect(OAuthErrorResponse(body: Array(#"{"error":"use_dpop_nonce"}"#.utf8))?.isUseDPoPNonce == true)
    }

    @Test func aRefusedTransactionCodeIsNamedWhateverTheErrorCode() throws {
        var error = try #require(
            OAuthErrorResponse(
                body: Array(#"{"error":"invalid_request","description":"invalid tx_code\u001b[2J"}"#.utf8)))
        #expect(error.errorDescription == "invalid tx_code\\u{1B}[2J")
        error.afterTransactionCode = true
        #expect(
            IssuanceError.issuer(endpoint: "token endpoint", error).description
                == "the issuer's token endpoint refused: invalid_request: invalid tx_code\\u{1B}[2J (the transaction code may be wrong: check the code, or ask the issuer for a new offer)"
        )
        #expect(TokenRequest.preAuthorizedCode("c", transactionCode: "1234").carriesTransactionCode)
        #expect(!TokenRequest.preAuthorizedCode("c", transactionCode: nil).carriesTransactionCode)
    }

    @Test func readsTheNonceResponse() throws {
        #expect(try NonceResponse(body: Array(#"{"c_nonce":"abc"}"#.utf8)).cNonce == "abc")
        #expect(throws: IssuanceError.self) { try NonceResponse(body: Array("{}".utf8)) }
    }
}

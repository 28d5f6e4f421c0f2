import Foundation
import Testing

@testable import OpenID4VCI

@Suite struct MetadataTests {
    static let issuer =
        #"""
        {"credential_issuer":"https://issuer.example","credential_endpoint":"https://issuer.example/credential",
         "nonce_endpoint":"https://issuer.example/nonce","notification_endpoint":"https://issuer.example/notify",
         "batch_credential_issuance":{"batch_size":5},
         "display":[{"name":"Exemple","locale":"fr"},{"name":"Example DMV","locale":"en-US"}],
         "credential_configurations_supported":{
           "mdl":{"format":"mso_mdoc","doctype":"org.iso.18013.5.1.mDL","cryptographic_binding_methods_supported":["cose_key"],
                  "proof_types_supported":{"jwt":{"proof_signing_alg_values_supported":["ES256"]}},
                  "credential_metadata":{"display":[{"name":"Driving licence"}],
                    "claims":[{"path":["org.iso.18013.5.1","family_name"],"display":[{"name":"Family name","locale":"en"}]},
                              {"path":["org.iso.18013.5.1","age_over_18"],"mandatory":true}]}},
           "sdjwt":{"format":"dc+sd-jwt","vct":"urn:x"}}}
        """#

    @Test func readsTheIssuerMetadata() throws {
        let metadata = try CredentialIssuerMetadata(body: Array(Self.issuer.utf8), issuer: "https://issuer.example/")
        #expect(metadata.credentialEndpoint == "https://issuer.example/credential")
        #expect(metadata.nonceEndpoint == "https://issuer.example/nonce")
        #expect(metadata.notificationEndpoint == "https://issuer.example/notify")
        #expect(metadata.batchSize == 5)
        #expect(metadata.displayName == "Example DMV")
        #expect(metadata.authorizationServers == [])
        let mdl = try #require(metadata.configurations["mdl"])
        #expect(mdl.isMdoc)
        #expect(mdl.docType == "org.iso.18013.5.1.mDL")
        #expect(mdl.jwtProofAlgorithms == ["ES256"])
        #expect(mdl.displayName == "Driving licence")
        #expect(
            mdl.claims.map(\.path) == [["org.iso.18013.5.1", "family_name"], ["org.iso.18013.5.1", "age_over_18"]])
        #expect(mdl.claims.map(\.displayName) == ["Family name", nil])
        #expect(mdl.claims.map(\.mandatory) == [false, true])
        let sdJWT = try #require(metadata.configurations["sdjwt"])
        #expect(!sdJWT.isMdoc && sdJWT.isSDJWT && sdJWT.isReceivable)
        #expect(sdJWT.vct == "urn:x" && sdJWT.credentialType == "urn:x")
        #expect(mdl.credentialType == "org.iso.18013.5.1.mDL" && !mdl.isSDJWT)
    }

    @Test func onlyMdocsWithADoctypeAndSDJWTVCsWithAVctAreReceivable() {
        #expect(!CredentialConfiguration(id: "a", format: "dc+sd-jwt", docType: nil).isReceivable)
        #expect(!CredentialConfiguration(id: "b", format: "mso_mdoc", docType: nil).isReceivable)
        #expect(!CredentialConfiguration(id: "c", format: "jwt_vc_json", docType: nil, vct: "urn:x").isReceivable)
        #expect(CredentialConfiguration(id: "d", format: "dc+sd-jwt", docType: nil, vct: "urn:x").isReceivable)
    }

    @Test func refusesMetadataOfAnotherIssuer() {
        #expect(throws: IssuanceError.invalidMetadata("credential_issuer is not the issuer of the offer")) {
            try CredentialIssuerMetadata(body: Array(Self.issuer.utf8), issuer: "https://evil.example")
        }
    }

    @Test func refusesAPlainHTTPEndpoint() {
        let body = Self.issuer.replacingOccurrences(
            of: "https://issuer.example/credential", with: "http://issuer.example/credential")
        #expect(throws: IssuanceError.invalidMetadata("credential_endpoint must be an https URL")) {
            try CredentialIssuerMetadata(body: Array(body.utf8), issuer: "https://issuer.example")
        }
    }

    @Test func readsAuthorizationServerMetadataWithDPoP() throws {
        let body =
            #"{"issuer":"https://as.example","token_endpoint":"https://as.example/token","dpop_signing_alg_values_supported":["ES256"],"pushed_authorization_request_endpoint":"https://as.example/par","pre-authorized_grant_anonymous_access_supported":true}"#
        let metadata = try AuthorizationServerMetadata(body: Array(body.utf8), issuer: "https://as.example")
        #expect(metadata.tokenEndpoint == "https://as.example/token")
        #expect(metadata.usesDPoP)
        #expect(metadata.pushedAuthorizationRequestEndpoint == "https://as.example/par")
        #expect(metadata.preAuthorizedAnonymousAccess)
    }

    @Test func refusesAuthorizationServerMetadataForAnotherIssuer() {
        let body = #"{"issuer":"https://other.example","token_endpoint":"https://as.example/token"}"#
        #expect(throws: IssuanceError.self) {
            try AuthorizationServerMetadata(body: Array(body.utf8), issuer: "https://as.example")
        }
    }
}

/// Metadata from outside is read within fixed limits, each refusal naming the member.
@Suite struct MetadataBoundsTests {
    static func metadata(configurations: Int, claims: Int = 1, servers: Int = 0) -> [UInt8] {
        let claimList = (0..<claims).map { #"{"path":["ns","e\#($0)"]}"# }.joined(separator: ",")
        let configs = (0..<configurations).map {
            #""c\#($0)":{"format":"mso_mdoc","doctype":"d","credential_metadata":{"claims":[\#(claimList)]}}"#
        }.joined(separator: ",")
        let serverList = (0..<servers).map { #""https://as\#($0).example""# }.joined(separator: ",")
        return Array(
            (#"{"credential_issuer":"https://issuer.example","credential_endpoint":"https://issuer.example/c","#
                + #""authorization_servers":[\#(serverList)],"credential_configurations_supported":{\#(configs)}}"#)
                .utf8)
    }

    @Test func theLimitsAreTaken() throws {
        let metadata = try CredentialIssuerMetadata(
            body: Self.metadata(
                configurations: CredentialIssuerMetadata.maximumConfigurations, claims: 4,
                servers: CredentialIssuerMetadata.maximumListLength),
            issuer: "https://issuer.example")
        #expect(metadata.configurations.count == CredentialIssuerMetadata.maximumConfigurations)
        let one = try CredentialIssuerMetadata(
            body: Self.metadata(configurations: 1, claims: CredentialIssuerMetadata.maximumClaims),
            issuer: "https://issuer.example")
        #expect(one.configurations["c0"]?.claims.count == CredentialIssuerMetadata.maximumClaims)
    }

    @Test func tooManyConfigurationsClaimsOrServersAreRefused() {
        let configurations = #expect(throws: IssuanceError.self) {
            try CredentialIssuerMetadata(
                body: Self.metadata(configurations: CredentialIssuerMetadata.maximumConfigurations + 1),
                issuer: "https://issuer.example")
        }
        #expect(configurations?.description.contains("credential_configurations_supported has 257") == true)
        let claims = #expect(throws: IssuanceError.self) {
            try CredentialIssuerMetadata(
                body: Self.metadata(configurations: 1, claims: CredentialIssuerMetadata.maximumClaims + 1),
                issuer: "https://issuer.example")
        }
        #expect(claims?.description.contains("describes 257 claims") == true)
        let servers = #expect(throws: IssuanceError.self) {
            try CredentialIssuerMetadata(
                body: Self.metadata(configurations: 1, servers: CredentialIssuerMetadata.maximumListLength + 1),
                issuer: "https://issuer.example")
        }
        #expect(servers?.description.contains("authorization_servers has 65 entries") == true)
    }
}

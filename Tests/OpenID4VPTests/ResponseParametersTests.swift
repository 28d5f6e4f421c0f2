import Base64
import CBOR
import Consent
import Foundation
import ISO18013
import JOSE
import MdocCrypto
import OAuthWeb
import Presentation
import TestSupport
import Testing
@testable import OpenID4VP

@Suite struct ResponseParametersTests {
    // MARK: - Transcripts

    /// OpenID4VP 1.0 Appendix B.2.6.1: the response is encrypted to the spec's key.
    @Test func handoverMatchesTheOpenID4VPVectorWhenEncrypted() throws {
        let inputs = try #require(Vectors.entry(Vectors.oid4vp, "oid4vp1.0_redirect_inputs")["value"] as? [String: Any])
        let jwk = try JSONValue(
            parsing: try JSONSerialization.data(withJSONObject: inputs["verifier_enc_jwk"]!).map { $0 })
        let request = try AuthorizationRequest(
            parameters: TestVerifier.payload(
                clientID: try #require(inputs["client_id"] as? String),
                responseURI: try #require(inputs["response_uri"] as? String),
                nonce: try #require(inputs["nonce"] as? String), mode: "direct_post.jwt",
                metadata: ["jwks": ["keys": [jwk]]]))
        let parameters = try ResponseParameters(request: request)
        #expect(parameters.encryption?.recipient.keyID == "1")
        #expect(parameters.encryption?.contentEncryption == .a128GCM)
        #expect(parameters.encryption?.thumbprint == Vectors.oid4vp("oid4vp1.0_redirect_jwk_thumbprint"))
        #expect(parameters.sessionTranscript.encoded == Vectors.oid4vp("oid4vp1.0_redirect_SessionTranscript"))
        #expect(parameters.mdocGeneratedNonce == nil)
    }

    @Test func handoverHasNoThumbprintWhenNotEncrypted() throws {
        let inputs = try #require(Vectors.entry(Vectors.oid4vp, "oid4vp1.0_redirect_inputs")["value"] as? [String: Any])
        let request = try AuthorizationRequest(
            parameters: TestVerifier.payload(
                clientID: try #require(inputs["client_id"] as? String),
                responseURI: try #require(inputs["response_uri"] as? String),
                nonce: try #require(inputs["nonce"] as? String)))
        let parameters = try ResponseParameters(request: request)
        #expect(parameters.encryption == nil)
        #expect(
            parameters.sessionTranscript.encoded
                == Vectors.oid4vp("derived_oid4vp1.0_redirect_SessionTranscript_unencrypted"))
    }

    /// ISO/IEC TS 18013-7 Annex B, with the example's mdocGeneratedNonce.
    @Test func preFinalHandoverMatchesTheISO18013_7Vector() throws {
        let inputs = try #require(Vectors.entry(Vectors.oid4vp, "iso18013-7_annexB_inputs")["value"] as? [String: Any])
        let v = try TestVerifier()
        let request = try AuthorizationRequest(
            parameters: TestVerifier.payload(
                clientID: try #require(inputs["client_id"] as? String),
                responseURI: try #require(inputs["response_uri"] as? String),
                nonce: try #require(inputs["nonce"] as? String), mode: "direct_post.jwt", dcql: nil,
                metadata: ["jwks": ["keys": [try v.encryptionJWK.json()]]],
                extra: [
                    "client_id_scheme": "x509_san_dns",
                    "presentation_definition": Self.presentationDefinition,
                ]))
        #expect(request.isPreFinal)
        let parameters = try ResponseParameters(
            request: request, mdocGeneratedNonce: try #require(inputs["mdocGeneratedNonce"] as? String))
        #expect(parameters.sessionTranscript.encoded == Vectors.oid4vp("iso18013-7_annexB_SessionTranscript"))
        #expect(parameters.encryption?.contentEncryption == .a256GCM)
        // A fresh nonce each time otherwise.
        let fresh1 = try ResponseParameters(request: request).mdocGeneratedNonce
        let fresh2 = try ResponseParameters(request: request).mdocGeneratedNonce
        #expect(fresh1 != nil && fresh1 != fresh2)
    }

    static let presentationDefinition: JSONValue = [
        "id": "mDL-sample-req",
        "input_descriptors": [
            [
                "id": "org.iso.18013.5.1.mDL", "format": ["mso_mdoc": ["alg": ["ES256"]]],
                "constraints": [
                    "limit_disclosure": "required",
                    "fields": [
                        ["path": ["$['org.iso.18013.5.1']['family_name']"], "intent_to_retain": false],
                        ["path": ["$['org.iso.18013.5.1']['age_over_21']"], "intent_to_retain": false],
                    ],
                ],
            ]
        ],
    ]

    // MARK: - Responses

    @Test func directPostCarriesTheVPTokenAndState() throws {
        let wallet = try TestWallet()
        let credential = try wallet.issue()
        let v = try TestVerifier()
        let verified = try v.verifier.verify(
            requestObject: try v.sign(TestVerifier.payload(metadata: try v.metadata())), clientID: TestVerifier.clientID
        )
        let match = try DCQLMatcher.match(
            verified.request.dcqlQuery, credentials: [credential], requester: verified.requester,
            clientMetadata: verified.request.clientMetadata)
        let parameters = try ResponseParameters(request: verified.request)
        let (body, records) = try parameters.successResponse(
            for: match, decision: .approveAll(match.consentRequest))
        #expect(body.fields.map(\.name) == ["vp_token", "state"])
        #expect(body["state"] == "state-1")
        #expect(body.encoded.hasPrefix("vp_token=%7B%22mdl%22%3A%5B%22"))

        let token = try JSONValue(parsing: try #require(body["vp_token"]))
        let entries = try #require(token.objectValue)
        #expect(Array(entries.keys) == ["mdl"])
        let presentations = try #require(entries["mdl"]?.arrayValue)
        #expect(presentations.count == 1)
        let text = try #require(presentations[0].stringValue)
        let bytes = try #require(Base64URL.decode(text))

        // The verifier's own transcript (unencrypted: no thumbprint), never the wallet's.
        let verifierTranscript = SessionTranscript(
            handover: OnlineHandover.openID4VP(
                clientID: TestVerifier.clientID, nonce: "n-0S6_WzA2Mj", jwkThumbprint: nil,
                responseURI: TestVerifier.responseURI))
        let result = try ResponseVerifier.verify(
            bytes, transcript: verifierTranscript, trustAnchors: [wallet.pki.iaca], eReaderKey: nil)
        #expect(result.isValid, "\(result.documents.flatMap(\.failures))")
        #expect(
            result.documents.first?.elements.map(\.id).sorted()
                == [ElementID(TestWallet.ns, "family_name"), ElementID(TestWallet.ns, "given_name")])
        #expect(records.map(\.docType) == [TestWallet.mDL])
        #expect(records.first?.outcome == .sent)
    }

    @Test func vpTokenHasOneArrayPerCredentialQuery() throws {
        let token = ResponseParameters.vpToken(["mdl": [[1, 2, 3]], "card": [[0xFF], [0xFE]]])
        #expect(token.serializedString == #"{"card":["_w","_g"],"mdl":["AQID"]}"#)
    }

    @Test(arguments: [
        (["A256GCM", "A128GCM"] as [String]?, JWEContentEncryption.a256GCM), (nil, .a128GCM),
        (["A128CBC-HS256", "A192GCM"], .a192GCM),
    ])
    func directPostJWTEncryptsToTheVerifierKey(_ enc: [String]?, _ expected: JWEContentEncryption) throws {
        let wallet = try TestWallet()
        let v = try TestVerifier()
        let verified = try v.verifier.verify(
            requestObject: try v.sign(
                TestVerifier.payload(mode: "direct_post.jwt", metadata: try v.metadata(enc: enc))),
            clientID: TestVerifier.clientID)
        let match = try DCQLMatcher.match(
            verified.request.dcqlQuery, credentials: [try wallet.issue()], requester: verified.requester)
        let parameters = try ResponseParameters(request: verified.request)
        #expect(parameters.encryption?.contentEncryption == expected)
        let (body, _) = try parameters.successResponse(for: match, decision: .approveAll(match.consentRequest))
        #expect(body.fields.map(\.name) == ["response"])

        let jwe = try JWE(compact: try #require(body["response"]))
        #expect(jwe.keyID == "enc-1")
        #expect(jwe.header["alg"] == "ECDH-ES")
        #expect(jwe.contentEncryption == expected)
        #expect(jwe.header["apu"] == nil)
        let payload = try JSONValue(parsing: try jwe.decrypt(with: v.encryptionKey))
        #expect(payload["state"] == "state-1")
        let encoded = try #require(payload["vp_token"]?["mdl"]?.arrayValue?.first?.stringValue)
        // The transcript has the thumbprint of the key the response was encrypted to.
        let expectedTranscript = SessionTranscript(
            handover: OnlineHandover.openID4VP(
                clientID: TestVerifier.clientID, nonce: "n-0S6_WzA2Mj",
                jwkThumbprint: try v.encryptionJWK.thumbprint, responseURI: TestVerifier.responseURI))
        #expect(parameters.sessionTranscript == expectedTranscript)
        let result = try ResponseVerifier.verify(
            try #require(Base64URL.decode(encoded)), transcript: expectedTranscript,
            trustAnchors: [wallet.pki.iaca], eReaderKey: nil)
        #expect(result.isValid)
    }

    @Test func preFinalResponseCarriesTheNonceAsAPUAndASubmission() throws {
        let wallet = try TestWallet()
        let v = try TestVerifier()
        let request = try AuthorizationRequest(
            parameters: TestVerifier.payload(
                clientID: "verifier.example.com", nonce: "abcdefgh1234567890", mode: "direct_post.jwt", dcql: nil,
                metadata: [
                    "jwks": ["keys": [try v.encryptionJWK.json()]],
                    "authorization_encrypted_response_alg": "ECDH-ES",
                    "authorization_encrypted_response_enc": "A256GCM",
                ],
                extra: ["client_id_scheme": "x509_san_dns", "presentation_definition": Self.presentationDefinition]))
        let verified = try v.verifier.verify(
            requestObject: try v.sign(
                TestVerifier.payload(
                    clientID: "verifier.example.com", nonce: "abcdefgh1234567890", mode: "direct_post.jwt", dcql: nil,
                    metadata: ["jwks": ["keys": [try v.encryptionJWK.json()]]],
                    extra: ["client_id_scheme": "x509_san_dns", "presentation_definition": Self.presentationDefinition])
            ),
            clientID: "verifier.example.com")
        #expect(verified.request.clientID.prefix == .x509SanDNS)
        #expect(request.isPreFinal)

        let match = try DCQLMatcher.match(
            verified.request.dcqlQuery, credentials: [try wallet.issue()], requester: verified.requester)
        let parameters = try ResponseParameters(request: verified.request)
        let mdocGeneratedNonce = try #require(parameters.mdocGeneratedNonce)
        let (body, _) = try parameters.successResponse(for: match, decision: .approveAll(match.consentRequest))
        let jwe = try JWE(compact: try #require(body["response"]))
        #expect(jwe.agreementPartyUInfo == Array(mdocGeneratedNonce.utf8))
        #expect(jwe.agreementPartyVInfo == Array("abcdefgh1234567890".utf8))
        #expect(jwe.contentEncryption == .a256GCM)
        let payload = try JSONValue(parsing: try jwe.decrypt(with: v.encryptionKey))
        let submission = try #require(payload["presentation_submission"])
        #expect(submission["definition_id"] == "mDL-sample-req")
        #expect(submission["descriptor_map"] == [["id": "org.iso.18013.5.1.mDL", "format": "mso_mdoc", "path": "$"]])
        let token = try #require(payload["vp_token"]?.stringValue)
        // The verifier rebuilds the 18013-7 transcript from apu.
        let transcript = SessionTranscript(
            handover: OnlineHandover.iso18013Part7(
                clientID: "verifier.example.com", responseURI: TestVerifier.responseURI, nonce: "abcdefgh1234567890",
                mdocGeneratedNonce: String(decoding: try #require(jwe.agreementPartyUInfo), as: UTF8.self)))
        let result = try ResponseVerifier.verify(
            try #require(Base64URL.decode(token)), transcript: transcript, trustAnchors: [wallet.pki.iaca],
            eReaderKey: nil)
        #expect(result.isValid)
        #expect(result.documents.first?.elements.count == 2)
    }

    @Test func errorResponsesAreNeverEncrypted() throws {
        let v = try TestVerifier()
        let request = try AuthorizationRequest(
            parameters: TestVerifier.payload(mode: "direct_post.jwt", metadata: try v.metadata()))
        let parameters = try ResponseParameters(request: request)
        let body = parameters.errorResponse(.accessDenied("the user declined"))
        #expect(
            body.fields == [
                .init("error", "access_denied"), .init("error_description", "the user declined"),
                .init("state", "state-1"),
            ])
        #expect(body.encoded == "error=access_denied&error_description=the+user+declined&state=state-1")
        // When no response parameters could be fixed (here: nothing to encrypt to).
        let noKeys = try AuthorizationRequest(parameters: TestVerifier.payload(mode: "direct_post.jwt", state: nil))
        let error = try #require(authorizationError { _ = try ResponseParameters(request: noKeys) })
        let fallback = ResponseParameters.errorResponse(error, state: noKeys.state)
        #expect(fallback.fields.map(\.name) == ["error", "error_description"])
        #expect(fallback["error"] == "invalid_request")
    }

    @Test func declineAndUnsatisfiedConsentAreAccessDenied() throws {
        let wallet = try TestWallet()
        let request = try AuthorizationRequest(parameters: TestVerifier.payload())
        let requester = Requester(displayName: "V", authentication: .unauthenticated)
        let match = try DCQLMatcher.match(request.dcqlQuery, credentials: [try wallet.issue()], requester: requester)
        let parameters = try ResponseParameters(request: request)
        #expect(
            authorizationError { _ = try parameters.successResponse(for: match, decision: .decline) }?.code
                == .accessDenied)
        let partial = ConsentDecision.approve([TestWallet.mDL: [ElementID(TestWallet.ns, "family_name")]])
        #expect(
            authorizationError { _ = try parameters.successResponse(for: match, decision: partial) }?.code
                == .accessDenied)
    }

    @Test func refusesEncryptionItCannotDo() throws {
        let v = try TestVerifier()
        let noKeys = try AuthorizationRequest(parameters: TestVerifier.payload(mode: "direct_post.jwt"))
        #expect(authorizationError { _ = try ResponseParameters(request: noKeys) }?.code == .invalidRequest)
        let cbc = try AuthorizationRequest(
            parameters: TestVerifier.payload(mode: "direct_post.jwt", metadata: try v.metadata(enc: ["A128CBC-HS256"])))
        #expect(authorizationError { _ = try ResponseParameters(request: cbc) }?.code == .invalidRequest)
        let signingKey = try AuthorizationRequest(
            parameters: TestVerifier.payload(
                mode: "direct_post.jwt",
                metadata: [
                    "jwks": ["keys": [try JWK(publicKey: v.leafKey.publicKey, use: "sig", algorithm: "ES256").json()]]
                ]))
        #expect(authorizationError { _ = try ResponseParameters(request: signingKey) }?.code == .invalidRequest)
    }

    @Test func requestURIPostBodyCarriesWalletMetadataAndNonce() throws {
        let nonce = WalletMetadata.makeWalletNonce()
        #expect(nonce.count == 22)
        let body = WalletMetadata.requestURIBody(walletNonce: nonce, clientID: TestVerifier.clientID)
        #expect(body["wallet_nonce"] == nonce)
        let metadata = try JSONValue(parsing: try #require(body["wallet_metadata"]))
        #expect(
            metadata["vp_formats_supported"]?["mso_mdoc"]?["deviceauth_alg_values"]?.arrayValue?.contains(-7) == true)
        #expect(metadata["request_object_signing_alg_values_supported"] != nil)
        #expect(metadata["client_id_prefixes_supported"]?.arrayValue?.contains("origin") == false)
        let redirect = WalletMetadata.requestURIBody(walletNonce: nonce, clientID: "redirect_uri:https://a.example/r")
        #expect(
            try JSONValue(parsing: try #require(redirect["wallet_metadata"]))[
                "request_object_signing_alg_values_supported"] == nil)
        #expect(WalletMetadata.accept == "application/oauth-authz-req+jwt")
        // Round trip through the form encoding.
        let decoded = try #require(FormEncoding.decode(body.encoded))
        #expect(decoded.map(\.name) == ["wallet_metadata", "wallet_nonce"])
        #expect(decoded[0].value == body["wallet_metadata"])
    }
}

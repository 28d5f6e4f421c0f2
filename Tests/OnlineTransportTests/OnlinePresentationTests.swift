import Consent
import Foundation
import JOSE
import MdocCrypto
import OAuthWeb
import OnlineFlows
import OnlineTransport
import OpenID4VP
import Testing
import Wallet

/// The whole online flow against the independent loopback verifier, whose /result says what it
/// received and whether openvc-core verified the DeviceResponse with the SessionTranscript it
/// computed itself.
@Suite(.serialized, .timeLimit(.minutes(2)))
struct OnlinePresentationTests {
    static let requested = ["age_over_18", "family_name", "given_name"]

    /// Runs one presentation against `verifier` with a fresh store.
    func present(
        _ verifier: LoopbackVerifier, url: String, consent: any ConsentPrompt, tlsCAs: [Certificate]? = nil,
        check: (CredentialStore) throws -> Void = { _ in }
    ) async throws -> OnlineOutcome {
        let wallet = try TestStore()
        defer { wallet.remove() }
        let outcome = try await OnlinePresentation.run(
            url: url, store: wallet.store, consent: consent,
            verifierTrust: VerifierTrustConfiguration(trustAnchors: [verifier.ca]), tlsCAs: tlsCAs ?? [verifier.ca])
        try check(wallet.store)
        return outcome
    }

    @Test("x509_san_dns signed request by reference with POST, direct_post.jwt: sent and verified by openvc")
    func signedByReferencePost() async throws {
        try await LoopbackVerifier.with { verifier in
            let (session, url) = try await verifier.start(kind: "signed", delivery: "post", mode: "direct_post.jwt")
            let outcome = try await present(verifier, url: url, consent: try TestPolicy.allowAll) { store throws in
                let history = try store.history()
                #expect(history.count == 1)
                #expect(history.first?.channel == .online)
                #expect(history.first?.decision == .sent)
                #expect(history.first?.requesterIdentifier == "x509_san_dns:localhost")
                #expect(history.first?.elementsSent.sorted() == Self.requested.map { "org.iso.18013.5.1:\($0)" })
            }
            #expect(outcome.result == .sent)
            #expect(outcome.isSigned)
            #expect(outcome.reportedToVerifier)
            #expect(outcome.requester?.authentication.isTrusted == true)
            #expect(outcome.redirectURI == "\(verifier.base)/done?session=\(session)")

            let result = try await verifier.result(session)
            #expect(result["verify_error"] == .null)
            #expect(result["verified"] == true)
            #expect(result["encrypted"] == true)
            #expect(result["jwe_alg"] == "ECDH-ES")
            #expect(result["jwe_enc"] == "A128GCM")
            #expect(result["jwe_kid"]?.stringValue?.hasPrefix("enc-") == true)
            #expect(result["state_ok"] == true)
            #expect(result["disclosed"]?["org.iso.18013.5.1"] == .array(Self.requested.map { .string($0) }))
            let fetches = result["request_fetches"]?.arrayValue ?? []
            #expect(fetches.count == 1)
            #expect(fetches.first?["method"] == "POST")
            #expect(fetches.first?["accept"] == "application/oauth-authz-req+jwt")
            #expect(fetches.first?["content_type"] == "application/x-www-form-urlencoded")
            #expect(fetches.first?["wallet_nonce_sent"] == true)
            #expect(fetches.first?["wallet_metadata_mso_mdoc"] == true)
        }
    }

    @Test("signed request by reference with GET, direct_post")
    func signedByReferenceGet() async throws {
        try await LoopbackVerifier.with { verifier in
            let (session, url) = try await verifier.start(kind: "signed", delivery: "get", mode: "direct_post")
            let outcome = try await present(verifier, url: url, consent: try TestPolicy.allowAll)
            #expect(outcome.result == .sent)
            let result = try await verifier.result(session)
            #expect(result["verify_error"] == .null)
            #expect(result["verified"] == true)
            #expect(result["encrypted"] == false)
            #expect(result["request_fetches"]?.arrayValue?.first?["method"] == "GET")
        }
    }

    @Test(
        "direct_post.jwt: enc chosen from encrypted_response_enc_values_supported, decrypted by joserfc",
        arguments: [(["A256GCM", "A128GCM"], "A256GCM"), (["A128CBC-HS256", "A128GCM"], "A128GCM")])
    func encryptionFromVerifierMetadata(offered: [String], expected: String) async throws {
        try await LoopbackVerifier.with { verifier in
            let (session, url) = try await verifier.start(
                kind: "signed", delivery: "get", mode: "direct_post.jwt", enc: offered)
            let outcome = try await present(verifier, url: url, consent: try TestPolicy.allowAll)
            #expect(outcome.result == .sent)
            let result = try await verifier.result(session)
            #expect(result["verified"] == true, "\(result["verify_error"] ?? .null)")
            #expect(result["jwe_enc"]?.stringValue == expected)
        }
    }

    @Test("signed Request Object by value, direct_post.jwt")
    func signedByValue() async throws {
        try await LoopbackVerifier.with { verifier in
            let (session, url) = try await verifier.start(kind: "signed", delivery: "value", mode: "direct_post.jwt")
            let outcome = try await present(verifier, url: url, consent: try TestPolicy.allowAll)
            #expect(outcome.result == .sent)
            let result = try await verifier.result(session)
            #expect(result["verify_error"] == .null)
            #expect(result["verified"] == true)
            #expect(result["request_fetches"]?.arrayValue?.isEmpty == true)
        }
    }

    @Test("redirect_uri request by value, unsigned, direct_post")
    func unsignedRedirectURIByValue() async throws {
        try await LoopbackVerifier.with { verifier in
            let (session, url) = try await verifier.start(kind: "unsigned", mode: "direct_post")
            let outcome = try await present(verifier, url: url, consent: try TestPolicy.allowAll) { store throws in
                #expect(try store.history().first?.authentication == "not authenticated")
            }
            #expect(outcome.result == .sent)
            #expect(!outcome.isSigned)
            #expect(outcome.requester?.authentication == .unauthenticated)
            #expect(outcome.redirectURI != nil)
            let result = try await verifier.result(session)
            #expect(result["verify_error"] == .null)
            #expect(result["verified"] == true)
            #expect(result["encrypted"] == false)
        }
    }

    @Test("redirect_uri request by value, unsigned, direct_post.jwt")
    func unsignedRedirectURIEncrypted() async throws {
        try await LoopbackVerifier.with { verifier in
            let (session, url) = try await verifier.start(kind: "unsigned", mode: "direct_post.jwt")
            let outcome = try await present(verifier, url: url, consent: try TestPolicy.allowAll)
            #expect(outcome.result == .sent)
            let result = try await verifier.result(session)
            #expect(result["verify_error"] == .null)
            #expect(result["verified"] == true)
            #expect(result["encrypted"] == true)
        }
    }

    @Test("a decline sends access_denied with the state and is in the history")
    func decline() async throws {
        try await LoopbackVerifier.with { verifier in
            let (session, url) = try await verifier.start(kind: "signed", delivery: "post", mode: "direct_post.jwt")
            let outcome = try await present(verifier, url: url, consent: try TestPolicy.declineAll) { store throws in
                let history = try store.history()
                #expect(history.map(\.decision) == [.declined])
                #expect(history.first?.elementsSent == [])
            }
            #expect(outcome.result == .declined)
            #expect(outcome.reportedToVerifier)
            let result = try await verifier.result(session)
            #expect(result["received"] == true)
            #expect(result["error"] == "access_denied")
            #expect(result["state_ok"] == true)
            // Error responses are not encrypted (OpenID4VP 1.0 section 8.3.1 allows it).
            #expect(result["encrypted"] == false)
            #expect(result["verified"] == false)
        }
    }

    @Test("a DCQL query for an element the credential lacks: access_denied, nothing disclosed")
    func missingElement() async throws {
        try await LoopbackVerifier.with { verifier in
            let (session, url) = try await verifier.start(kind: "signed", delivery: "get", variant: "missing-element")
            let outcome = try await present(verifier, url: url, consent: try TestPolicy.allowAll) { store throws in
                let history = try store.history()
                #expect(history.count == 1)
                #expect(history.first?.decision.name == "failed")
                #expect(history.first?.elementsSent == [])
            }
            #expect(
                outcome.result == .refused(AuthorizationError(.accessDenied, "no credential satisfies the request")))
            #expect(outcome.reportedToVerifier)
            let result = try await verifier.result(session)
            #expect(result["error"] == "access_denied")
            #expect(result["disclosed"] == [:])
        }
    }

    @Test("a tampered request signature is refused and nothing is sent")
    func tamperedSignature() async throws {
        try await LoopbackVerifier.with { verifier in
            let (session, url) = try await verifier.start(kind: "signed", delivery: "post", variant: "tampered")
            let outcome = try await present(verifier, url: url, consent: try TestPolicy.allowAll) { store throws in
                #expect(try store.history().isEmpty)
            }
            guard case .refused(let error) = outcome.result else {
                Issue.record("expected a refusal, got \(outcome.result)")
                return
            }
            #expect(error.code == .invalidRequestObject)
            #expect(!outcome.reportedToVerifier)
            #expect(outcome.requester == nil)
            let result = try await verifier.result(session)
            #expect(result["received"] == false)
        }
    }

    @Test("a client_id that the signing certificate does not name is refused and nothing is sent")
    func clientIDNotInCertificate() async throws {
        try await LoopbackVerifier.with { verifier in
            let (session, url) = try await verifier.start(kind: "signed", delivery: "get", variant: "wrong-client")
            let outcome = try await present(verifier, url: url, consent: try TestPolicy.allowAll)
            #expect(
                outcome.result
                    == .refused(
                        AuthorizationError(
                            .invalidRequest,
                            "the client_id is not a DNS subject alternative name of the signing certificate")))
            #expect(!outcome.reportedToVerifier)
            #expect(try await verifier.result(session)["received"] == false)
        }
    }

    @Test("a signed request that does not echo our wallet_nonce is refused")
    func walletNonceNotEchoed() async throws {
        try await LoopbackVerifier.with { verifier in
            let (session, url) = try await verifier.start(kind: "signed", delivery: "post", variant: "no-nonce-echo")
            let outcome = try await present(verifier, url: url, consent: try TestPolicy.allowAll)
            #expect(
                outcome.result
                    == .refused(
                        AuthorizationError(.invalidRequest, "the Request Object does not echo the wallet_nonce")))
            #expect(!outcome.reportedToVerifier)
            let result = try await verifier.result(session)
            #expect(result["request_fetches"]?.arrayValue?.first?["wallet_nonce_sent"] == true)
            #expect(result["received"] == false)
        }
    }

    @Test(
        "vp_formats_not_supported reaches a verifier whose origin is proven",
        arguments: [("signed", "post"), ("signed", "value"), ("unsigned", "value")])
    func formatsNotSupported(kind: String, delivery: String) async throws {
        try await LoopbackVerifier.with { verifier in
            let (session, url) = try await verifier.start(
                kind: kind, delivery: delivery, mode: "direct_post.jwt", variant: "no-mdoc-format")
            let outcome = try await present(verifier, url: url, consent: try TestPolicy.allowAll) { store throws in
                // Refused before the request was accepted: no requester to write in the history.
                #expect(try store.history().isEmpty)
            }
            guard case .refused(let error) = outcome.result else {
                Issue.record("expected a refusal, got \(outcome.result)")
                return
            }
            #expect(error.code == .vpFormatsNotSupported)
            #expect(outcome.reportedToVerifier)
            let result = try await verifier.result(session)
            #expect(result["error"] == "vp_formats_not_supported")
            #expect(result["state_ok"] == true)
            #expect(result["encrypted"] == false)
        }
    }

    @Test("without the verifier's CA (no --tls-ca) the holder refuses the TLS connection")
    func untrustedTLS() async throws {
        try await LoopbackVerifier.with { verifier in
            let (session, url) = try await verifier.start(kind: "signed", delivery: "post")
            await #expect {
                _ = try await present(verifier, url: url, consent: try TestPolicy.allowAll, tlsCAs: [])
            } throws: { error in
                guard case .requestFetch(.tlsFailed(let host, _)) = error as? OnlinePresentationError else {
                    return false
                }
                return host == "localhost"
            }
            #expect(try await verifier.result(session)["request_fetches"]?.arrayValue?.isEmpty == true)
        }
    }

    @Test("a request_uri that does not answer in time gives a timeout error, within the limit")
    func requestURITimeout() async throws {
        try await LoopbackVerifier.with { verifier in
            let wallet = try TestStore()
            defer { wallet.remove() }
            let requestURI = FormEncoding.escape("\(verifier.base)/slow?s=20")
            let url = "openid4vp://?client_id=x509_san_dns%3Alocalhost&request_uri=\(requestURI)"
            let start = ContinuousClock.now
            await #expect(throws: OnlinePresentationError.self) {
                _ = try await OnlinePresentation.run(
                    url: url, store: wallet.store, consent: try TestPolicy.allowAll,
                    verifierTrust: VerifierTrustConfiguration(trustAnchors: [verifier.ca]), tlsCAs: [verifier.ca],
                    limits: HTTPFetcher.Limits(requestTimeout: .seconds(1)))
            }
            #expect(ContinuousClock.now - start < .seconds(5))
            do {
                _ = try await OnlinePresentation.run(
                    url: url, store: wallet.store, consent: try TestPolicy.allowAll,
                    verifierTrust: VerifierTrustConfiguration(trustAnchors: [verifier.ca]), tlsCAs: [verifier.ca],
                    limits: HTTPFetcher.Limits(requestTimeout: .seconds(1)))
            } catch {
                #expect("\(error)" == "could not fetch the request: localhost did not answer within 1 s")
            }
        }
    }

    @Test("an unsupported request_uri_method is refused locally with invalid_request_uri_method")
    func badRequestURIMethod() async throws {
        let wallet = try TestStore()
        defer { wallet.remove() }
        let url =
            "openid4vp://?client_id=x509_san_dns%3Alocalhost&request_uri=https%3A%2F%2Flocalhost%3A1%2Fr&request_uri_method=put"
        let outcome = try await OnlinePresentation.run(
            url: url, store: wallet.store, consent: try TestPolicy.allowAll, verifierTrust: VerifierTrustConfiguration()
        )
        guard case .refused(let error) = outcome.result else {
            Issue.record("expected a refusal")
            return
        }
        #expect(error.code == .invalidRequestURIMethod)
        #expect(!outcome.reportedToVerifier)
    }
}

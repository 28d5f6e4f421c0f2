import Base64
import Consent
import Foundation
import JOSE
import MdocCrypto
import Testing

@testable import OpenID4VP

@Suite struct RequestObjectVerifierTests {
    // MARK: - x509_san_dns

    @Test func verifiesASignedX509SanDNSRequest() throws {
        let v = try TestVerifier()
        let jwt = try v.sign(TestVerifier.payload(mode: "direct_post.jwt", metadata: try v.metadata()))
        // The URL's own parameters are ignored: only the signed ones count.
        let url =
            "openid4vp://?client_id=\(q(TestVerifier.clientID))&request=\(jwt)&nonce=unsigned&response_uri=\(q("https://evil.example/"))"
        guard case .requestObject(let object, let clientID) = try AuthorizationRequestURL(url) else {
            Issue.record("not a request object")
            return
        }
        let verified = try v.verifier.verify(requestObject: object, clientID: clientID)
        #expect(verified.isSigned)
        #expect(verified.request.nonce == "n-0S6_WzA2Mj")
        #expect(verified.request.responseURI == TestVerifier.responseURI)
        #expect(verified.request.responseMode == .directPostJWT)
        #expect(verified.certificateChain == [v.leaf, v.ca])
        #expect(verified.requester.displayName == "Test Verifier")
        #expect(verified.requester.identifier == TestVerifier.clientID)
        #expect(verified.requester.authentication == .trusted(anchor: v.ca.subject))
        #expect(verified.requester.certificateChain == [v.leaf.der, v.ca.der])
    }

    @Test func namesTheVerifierByItsCertificateWithoutClientName() throws {
        let v = try TestVerifier()
        let jwt = try v.sign(TestVerifier.payload(mode: "direct_post.jwt", metadata: try v.metadata(name: nil)))
        let verified = try v.verifier.verify(requestObject: jwt, clientID: TestVerifier.clientID)
        #expect(verified.requester.displayName == "Test Verifier")
        #expect(verified.request.clientMetadata?.clientName == nil)
    }

    @Test func refusesATamperedSignature() throws {
        let v = try TestVerifier()
        let jwt = try v.sign(TestVerifier.payload())
        var parts = jwt.split(separator: ".").map(String.init)
        var signature = try #require(Base64URL.decode(parts[2]))
        signature[10] ^= 0x40
        parts[2] = Base64URL.encode(signature)
        let error = authorizationError {
            _ = try v.verifier.verify(requestObject: parts.joined(separator: "."), clientID: TestVerifier.clientID)
        }
        #expect(error == AuthorizationError(.invalidRequestObject, "the Request Object signature does not verify"))
        // Signed by a key that is not the certificate's.
        let other = try v.sign(TestVerifier.payload(), key: try PrivateKey.generate(.p256))
        #expect(
            authorizationError { _ = try v.verifier.verify(requestObject: other, clientID: TestVerifier.clientID) }?
                .code == .invalidRequestObject)
    }

    @Test func refusesAClientIDThatIsNotADNSNameOfTheCertificate() throws {
        let v = try TestVerifier(dnsNames: ["other.example.com"])
        let jwt = try v.sign(TestVerifier.payload())
        let error = authorizationError {
            _ = try v.verifier.verify(requestObject: jwt, clientID: TestVerifier.clientID)
        }
        #expect(error?.code == .invalidRequest)
        #expect(error?.description.contains("subject alternative name") == true)
    }

    @Test func refusesAResponseURIOnAnotherHost() throws {
        let v = try TestVerifier()
        let jwt = try v.sign(TestVerifier.payload(responseURI: "https://attacker.example/response"))
        let error = authorizationError {
            _ = try v.verifier.verify(requestObject: jwt, clientID: TestVerifier.clientID)
        }
        #expect(error?.code == .invalidRequest)
        #expect(error?.description.contains("response_uri host") == true)
    }

    @Test func refusesAClientIDOtherThanTheURLs() throws {
        let v = try TestVerifier()
        let jwt = try v.sign(TestVerifier.payload())
        let error = authorizationError {
            _ = try v.verifier.verify(requestObject: jwt, clientID: "x509_san_dns:other.example.com")
        }
        #expect(error?.code == .invalidRequest)
    }

    @Test(arguments: [nil, "JWT", "oauth-authz-req"])
    func refusesAMissingOrWrongTyp(_ typ: String?) throws {
        let v = try TestVerifier()
        let jwt = try v.sign(TestVerifier.payload(), typ: typ)
        let error = authorizationError {
            _ = try v.verifier.verify(requestObject: jwt, clientID: TestVerifier.clientID)
        }
        #expect(error?.code == .invalidRequestObject)
    }

    @Test func acceptsTheTypWithItsMediaTypePrefix() throws {
        let v = try TestVerifier()
        let jwt = try v.sign(TestVerifier.payload(), typ: "application/oauth-authz-req+jwt")
        _ = try v.verifier.verify(requestObject: jwt, clientID: TestVerifier.clientID)
    }

    @Test func refusesAChainToNoConfiguredAnchorUnlessAllowed() throws {
        let v = try TestVerifier()
        let other = try TestVerifier()
        let jwt = try v.sign(TestVerifier.payload())
        let strict = RequestObjectVerifier(configuration: VerifierTrustConfiguration(trustAnchors: [other.ca]))
        #expect(
            authorizationError { _ = try strict.verify(requestObject: jwt, clientID: TestVerifier.clientID) }?.code
                == .invalidRequest)
        let lenient = RequestObjectVerifier(
            configuration: VerifierTrustConfiguration(trustAnchors: [other.ca], allowUntrustedCertificates: true))
        let verified = try lenient.verify(requestObject: jwt, clientID: TestVerifier.clientID)
        guard case .untrusted = verified.requester.authentication else {
            Issue.record("expected untrusted, got \(verified.requester.authentication)")
            return
        }
        // An untrusted chain never excuses a bad SAN.
        let wrongHost = try TestVerifier(dnsNames: ["other.example.com"])
        let jwt2 = try wrongHost.sign(TestVerifier.payload())
        #expect(
            authorizationError { _ = try lenient.verify(requestObject: jwt2, clientID: TestVerifier.clientID) }?.code
                == .invalidRequest)
    }

    @Test func refusesAnExpiredCertificateOrRequest() throws {
        let v = try TestVerifier(notAfter: Date(timeIntervalSinceNow: 600))
        let jwt = try v.sign(TestVerifier.payload())
        _ = try v.verifier.verify(requestObject: jwt, clientID: TestVerifier.clientID)
        #expect(
            authorizationError {
                _ = try v.verifier.verify(
                    requestObject: jwt, clientID: TestVerifier.clientID, at: Date(timeIntervalSinceNow: 7200))
            }?.code == .invalidRequest)
        let expired = try v.sign(
            TestVerifier.payload(extra: ["exp": .number(Date(timeIntervalSinceNow: -3600).timeIntervalSince1970)]))
        #expect(
            authorizationError { _ = try v.verifier.verify(requestObject: expired, clientID: TestVerifier.clientID) }?
                .code == .invalidRequestObject)
    }

    @Test func refusesAnX5cWithoutCertificates() throws {
        let v = try TestVerifier()
        let jwt = try JWS.sign(
            payload: JSONValue.object(TestVerifier.payload()).serialized, header: ["typ": "oauth-authz-req+jwt"],
            key: v.leafKey)
        #expect(
            authorizationError { _ = try v.verifier.verify(requestObject: jwt, clientID: TestVerifier.clientID) }?.code
                == .invalidRequest)
    }

    // MARK: - wallet_nonce

    @Test func checksTheWalletNonceOfAPostedRequestURI() throws {
        let v = try TestVerifier()
        let nonce = WalletMetadata.makeWalletNonce()
        let echoed = try v.sign(TestVerifier.payload(extra: ["wallet_nonce": .string(nonce)]))
        let verified = try v.verifier.verify(requestObject: echoed, clientID: TestVerifier.clientID, walletNonce: nonce)
        #expect(verified.request.walletNonce == nonce)
        let missing = try v.sign(TestVerifier.payload())
        #expect(
            authorizationError {
                _ = try v.verifier.verify(requestObject: missing, clientID: TestVerifier.clientID, walletNonce: nonce)
            }?.code == .invalidRequest)
        #expect(
            authorizationError {
                _ = try v.verifier.verify(requestObject: echoed, clientID: TestVerifier.clientID, walletNonce: "other")
            }?.code == .invalidRequest)
    }

    // MARK: - x509_hash

    @Test func verifiesAnX509HashRequest() throws {
        let v = try TestVerifier()
        let hash = Base64URL.encode(Digest.sha256(v.leaf.der))
        let clientID = "x509_hash:\(hash)"
        // x509_hash does not tie the response_uri to a host.
        let jwt = try v.sign(TestVerifier.payload(clientID: clientID, responseURI: "https://elsewhere.example/r"))
        let verified = try v.verifier.verify(requestObject: jwt, clientID: clientID)
        #expect(verified.requester.authentication == .trusted(anchor: v.ca.subject))
        let wrong = "x509_hash:\(Base64URL.encode(Digest.sha256(v.ca.der)))"
        let jwt2 = try v.sign(TestVerifier.payload(clientID: wrong))
        #expect(
            authorizationError { _ = try v.verifier.verify(requestObject: jwt2, clientID: wrong) }?.code
                == .invalidRequest)
    }

    // MARK: - decentralized_identifier

    @Test(arguments: [Curve.p256, .ed25519])
    func verifiesADIDKeyRequest(_ curve: Curve) throws {
        let key = try PrivateKey.generate(curve)
        let did = didKey(key.publicKey)
        let clientID = "decentralized_identifier:\(did)"
        let payload = TestVerifier.payload(clientID: clientID, responseURI: "https://did.example/response")
        let jwt = try JWS.sign(
            payload: JSONValue.object(payload).serialized,
            header: ["typ": "oauth-authz-req+jwt", "kid": .string("\(did)#\(did.dropFirst("did:key:".count))")],
            key: key)
        let verified = try RequestObjectVerifier(configuration: .init()).verify(requestObject: jwt, clientID: clientID)
        guard case .untrusted = verified.requester.authentication else {
            Issue.record("a DID is not a trust anchor")
            return
        }
        // Signed by another key.
        let forged = try JWS.sign(
            payload: JSONValue.object(payload).serialized, header: ["typ": "oauth-authz-req+jwt"],
            key: try PrivateKey.generate(curve))
        #expect(
            authorizationError {
                _ = try RequestObjectVerifier(configuration: .init()).verify(requestObject: forged, clientID: clientID)
            }?.code == .invalidRequestObject)
        // A kid naming another DID.
        let otherKID = try JWS.sign(
            payload: JSONValue.object(payload).serialized,
            header: ["typ": "oauth-authz-req+jwt", "kid": "did:key:zOther#zOther"], key: key)
        #expect(
            authorizationError {
                _ = try RequestObjectVerifier(configuration: .init()).verify(
                    requestObject: otherKID, clientID: clientID)
            }?.code == .invalidRequest)
    }

    @Test func verifiesADIDJWKRequest() throws {
        let key = try PrivateKey.generate(.p256)
        let did = "did:jwk:" + Base64URL.encode(try JWK(publicKey: key.publicKey, use: "sig").json().serialized)
        let clientID = "decentralized_identifier:\(did)"
        let payload = TestVerifier.payload(clientID: clientID, responseURI: "https://did.example/response")
        let jwt = try JWS.sign(
            payload: JSONValue.object(payload).serialized,
            header: ["typ": "oauth-authz-req+jwt", "kid": .string(did + "#0")],
            key: key)
        let verified = try RequestObjectVerifier(configuration: .init()).verify(requestObject: jwt, clientID: clientID)
        #expect(verified.isSigned)
        #expect(verified.requester.identifier == clientID)
    }

    @Test func resolvesAKnownDIDKey() throws {
        // The P-256 did:key test vector of the W3C CCG did:key spec.
        let key = try DecentralizedIdentifier.publicKey(of: "did:key:zDnaerDaTF5BXEavCrfRZEk316dpbLsfPDZ3WJ5hRTPFU2169")
        #expect(key.curve == .p256)
        #expect(didKey(key) == "did:key:zDnaerDaTF5BXEavCrfRZEk316dpbLsfPDZ3WJ5hRTPFU2169")
        #expect(throws: AuthorizationError.self) { try DecentralizedIdentifier.publicKey(of: "did:web:example.com") }
        #expect(throws: AuthorizationError.self) { try DecentralizedIdentifier.publicKey(of: "did:key:z0OIl") }
    }

    // MARK: - redirect_uri

    @Test func acceptsAnUnsignedRedirectURIRequest() throws {
        let clientID = "redirect_uri:https://shop.example/post"
        let request = try AuthorizationRequest(
            parameters: TestVerifier.payload(
                clientID: clientID, responseURI: "https://shop.example/post", metadata: ["client_name": "Shop"]))
        let verified = try RequestObjectVerifier(configuration: .init()).verify(unsigned: request)
        #expect(!verified.isSigned)
        #expect(verified.requester.authentication == .unauthenticated)
        #expect(verified.requester.displayName == "Shop")
        let elsewhere = try AuthorizationRequest(
            parameters: TestVerifier.payload(clientID: clientID, responseURI: "https://shop.example/other"))
        #expect(
            authorizationError { _ = try RequestObjectVerifier(configuration: .init()).verify(unsigned: elsewhere) }?
                .code == .invalidRequest)
        // As an unsecured Request Object.
        let unsecured = JWS.unsecured(
            payload: JSONValue.object(
                TestVerifier.payload(clientID: clientID, responseURI: "https://shop.example/post")
            )
            .serialized, header: ["typ": "oauth-authz-req+jwt"])
        _ = try RequestObjectVerifier(configuration: .init()).verify(requestObject: unsecured, clientID: clientID)
    }

    @Test func refusesASignedRedirectURIRequest() throws {
        let v = try TestVerifier()
        let clientID = "redirect_uri:https://shop.example/post"
        let jwt = try v.sign(TestVerifier.payload(clientID: clientID, responseURI: "https://shop.example/post"))
        let error = authorizationError { _ = try v.verifier.verify(requestObject: jwt, clientID: clientID) }
        #expect(error?.code == .invalidRequest)
        #expect(error?.description.contains("must not be signed") == true)
    }

    @Test func refusesUnsignedRequestsOfPrefixesThatRequireASignature() throws {
        for clientID in ["x509_san_dns:verifier.example.com", "x509_hash:abc", "decentralized_identifier:did:key:z"] {
            let request = try AuthorizationRequest(parameters: TestVerifier.payload(clientID: clientID))
            #expect(
                authorizationError { _ = try RequestObjectVerifier(configuration: .init()).verify(unsigned: request) }?
                    .code == .invalidRequest)
            // An unsecured Request Object is no better.
            let unsecured = JWS.unsecured(
                payload: JSONValue.object(TestVerifier.payload(clientID: clientID)).serialized,
                header: ["typ": "oauth-authz-req+jwt"])
            #expect(
                authorizationError {
                    _ = try RequestObjectVerifier(configuration: .init()).verify(
                        requestObject: unsecured, clientID: clientID)
                }?.code == .invalidRequest)
        }
    }

    // MARK: - origin, openid_federation, verifier_attestation

    @Test(arguments: [
        "origin:https://verifier.example.com", "openid_federation:https://verifier.example.com",
        "verifier_attestation:verifier.example.com",
    ])
    func refusesUnsupportedPrefixes(_ clientID: String) throws {
        let v = try TestVerifier()
        let request = try AuthorizationRequest(parameters: TestVerifier.payload(clientID: clientID))
        #expect(authorizationError { _ = try v.verifier.verify(unsigned: request) }?.code == .invalidRequest)
        let jwt = try v.sign(TestVerifier.payload(clientID: clientID))
        let error = authorizationError { _ = try v.verifier.verify(requestObject: jwt, clientID: clientID) }
        #expect(error?.code == .invalidRequest)
        if clientID.hasPrefix("origin:") { #expect(error?.description.contains("Digital Credentials API") == true) }
    }

    // MARK: - pre-registered

    @Test func acceptsPreRegisteredVerifiers() throws {
        let v = try TestVerifier()
        let registeredKey = try PrivateKey.generate(.p256)
        let configuration = VerifierTrustConfiguration(preRegistered: [
            PreRegisteredVerifier(clientID: "kiosk-1", name: "Kiosk", responseURIs: ["https://kiosk.example/r"]),
            PreRegisteredVerifier(
                clientID: "bank", name: "Bank", responseURIs: ["https://bank.example/r"],
                publicKey: try JWK(publicKey: registeredKey.publicKey),
                clientMetadata: ClientMetadata(clientName: "Bank")),
            PreRegisteredVerifier(
                clientID: "gov", name: "Agency", responseURIs: [TestVerifier.responseURI], trustAnchors: [v.ca]),
        ])
        let verifier = RequestObjectVerifier(configuration: configuration)

        let kiosk = try AuthorizationRequest(
            parameters: TestVerifier.payload(clientID: "kiosk-1", responseURI: "https://kiosk.example/r"))
        let verified = try verifier.verify(unsigned: kiosk)
        #expect(verified.requester.displayName == "Kiosk")
        #expect(verified.requester.authentication == .unauthenticated)

        let otherURI = try AuthorizationRequest(
            parameters: TestVerifier.payload(clientID: "kiosk-1", responseURI: "https://kiosk.example/other"))
        #expect(authorizationError { _ = try verifier.verify(unsigned: otherURI) }?.code == .invalidRequest)
        let unknown = try AuthorizationRequest(
            parameters: TestVerifier.payload(clientID: "stranger", responseURI: "https://kiosk.example/r"))
        #expect(authorizationError { _ = try verifier.verify(unsigned: unknown) }?.code == .invalidRequest)

        let bankPayload = TestVerifier.payload(clientID: "bank", responseURI: "https://bank.example/r")
        let bankJWT = try JWS.sign(
            payload: JSONValue.object(bankPayload).serialized, header: ["typ": "oauth-authz-req+jwt"],
            key: registeredKey)
        let bank = try verifier.verify(requestObject: bankJWT, clientID: "bank")
        #expect(bank.requester.displayName == "Bank")
        #expect(bank.requester.authentication.isTrusted)
        #expect(bank.request.clientMetadata?.clientName == "Bank")
        // The bank must sign.
        #expect(
            authorizationError { _ = try verifier.verify(unsigned: try AuthorizationRequest(parameters: bankPayload)) }?
                .code == .invalidRequest)
        // Its metadata is registered: client_metadata in the request is refused.
        var withMetadata = bankPayload
        withMetadata["client_metadata"] = ["client_name": "Not the bank"]
        let withMetadataJWT = try JWS.sign(
            payload: JSONValue.object(withMetadata).serialized, header: ["typ": "oauth-authz-req+jwt"],
            key: registeredKey)
        #expect(
            authorizationError { _ = try verifier.verify(requestObject: withMetadataJWT, clientID: "bank") }?.code
                == .invalidClient)

        let govJWT = try v.sign(TestVerifier.payload(clientID: "gov"))
        let gov = try verifier.verify(requestObject: govJWT, clientID: "gov")
        #expect(gov.requester.authentication == .trusted(anchor: v.ca.subject))
        #expect(gov.requester.displayName == "Agency")
    }
}

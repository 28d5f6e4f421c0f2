import Base64
import Consent
import FoundationEssentials
import JOSE
import MdocCrypto
import PrintableText

/// A verifier known to the wallet in advance (a client_id without a prefix).
public struct PreRegisteredVerifier: Sendable {
    /// The exact `client_id`.
    public var clientID: String
    /// What the user is shown.
    public var name: String
    /// The `response_uri` values it may use (exact match).
    public var responseURIs: [String]
    /// A key its Request Objects must be signed with.
    public var publicKey: JWK?
    /// Roots its Request Objects' `x5c` chains must lead to.
    public var trustAnchors: [Certificate]
    /// Metadata known for it; a request that also sends `client_metadata` is refused
    /// (`invalid_client`, OpenID4VP 1.0 section 8.5).
    public var clientMetadata: ClientMetadata?

    public init(
        clientID: String, name: String, responseURIs: [String], publicKey: JWK? = nil, trustAnchors: [Certificate] = [],
        clientMetadata: ClientMetadata? = nil
    ) {
        self.clientID = clientID
        self.name = name
        self.responseURIs = responseURIs
        self.publicKey = publicKey
        self.trustAnchors = trustAnchors
        self.clientMetadata = clientMetadata
    }

    /// Whether its requests must be signed.
    public var requiresSignedRequests: Bool { publicKey != nil || !trustAnchors.isEmpty }
}

/// Whom the wallet trusts to ask for credentials online.
public struct VerifierTrustConfiguration: Sendable {
    /// Roots (or trusted intermediates) for `x509_san_dns:` and `x509_hash:` verifiers.
    public var trustAnchors: [Certificate]
    /// Verifiers known by client_id.
    public var preRegistered: [PreRegisteredVerifier]
    /// Accept an `x509_*` request whose chain does not lead to an anchor (the signature, the
    /// SAN or hash and the response_uri rules still hold); the requester is then marked
    /// untrusted for the consent prompt. Off by default.
    public var allowUntrustedCertificates: Bool
    /// Tolerance for `exp` and `nbf`.
    public var clockSkew: TimeInterval

    public init(
        trustAnchors: [Certificate] = [], preRegistered: [PreRegisteredVerifier] = [],
        allowUntrustedCertificates: Bool = false, clockSkew: TimeInterval = 300
    ) {
        self.trustAnchors = trustAnchors
        self.preRegistered = preRegistered
        self.allowUntrustedCertificates = allowUntrustedCertificates
        self.clockSkew = clockSkew
    }
}

/// A request whose origin was checked by the rules of its client identifier prefix.
public struct VerifiedAuthorizationRequest: Sendable {
    /// The request; when it was signed, every parameter comes from the signed payload. For a
    /// pre-registered verifier with known metadata, ``AuthorizationRequest/clientMetadata``
    /// is that metadata.
    public let request: AuthorizationRequest
    /// Who asks, for consent, policy and history.
    public let requester: Requester
    /// Whether the request came as a signed Request Object.
    public let isSigned: Bool
    /// The `x5c` chain of a signed request (leaf first); empty otherwise.
    public let certificateChain: [Certificate]
}

/// Checks who sent an Authorization Request (OpenID4VP 1.0 sections 5 and 5.9, RFC 9101):
///
/// - a signed Request Object has `typ` `oauth-authz-req+jwt`, its `client_id` equals the URL's,
///   it echoes our `wallet_nonce` when we sent one, and its parameters are the only ones used;
/// - `x509_san_dns:HOST`: the `x5c` chain leads to a configured anchor, HOST is a dNSName SAN
///   of the leaf, the leaf key verifies the signature, and the response_uri host is HOST;
/// - `x509_hash:H`: H is base64url(SHA-256(leaf DER)), chain and signature as above;
/// - `decentralized_identifier:` with did:key or did:jwk: the DID's key verifies the signature;
/// - `redirect_uri:URI`: never signed, and the response_uri is URI;
/// - no prefix: a configured ``PreRegisteredVerifier``, its response URIs and key;
/// - `origin:` is refused; `openid_federation:` and `verifier_attestation:` are not supported.
public struct RequestObjectVerifier: Sendable {
    /// The media type of Request Objects (RFC 9101), also the `Accept` of a request_uri fetch.
    public static let requestObjectType = "oauth-authz-req+jwt"

    public let configuration: VerifierTrustConfiguration

    public init(configuration: VerifierTrustConfiguration) {
        self.configuration = configuration
    }

    /// Checks a Request Object (from `request`, or fetched from `request_uri`).
    ///
    /// - Parameters:
    ///   - requestObject: the compact JWS as received.
    ///   - clientID: the `client_id` of the URL that carried or referenced it.
    ///   - walletNonce: the `wallet_nonce` this wallet POSTed to the request_uri, if any.
    ///   - time: the moment certificates and `exp` are checked at.
    public func verify(requestObject: String, clientID: String, walletNonce: String? = nil, at time: Date = Date())
        throws(AuthorizationError) -> VerifiedAuthorizationRequest
    {
        let jws: JWS
        do {
            jws = try JWS(compact: requestObject.trimmingWhitespace())
        } catch {
            throw .invalidRequestObject("the Request Object is not a compact JWS")
        }
        guard let type = jws.type, Self.isRequestObjectType(type) else {
            throw .invalidRequestObject("the Request Object typ is not oauth-authz-req+jwt")
        }
        let claims: [String: JSONValue]
        do {
            claims = try jws.payloadJSON()
        } catch {
            throw .invalidRequestObject("the Request Object payload is not a JSON object")
        }
        guard claims["client_id"]?.stringValue == clientID else {
            throw .invalidRequest("the Request Object client_id differs from the request's client_id")
        }
        if jws.isUnsecured {
            guard jws.signature.isEmpty else {
                throw .invalidRequestObject("an unsecured Request Object has a signature")
            }
            let request = try AuthorizationRequest(parameters: claims)
            try checkValidity(request, walletNonce: walletNonce, at: time)
            return try verify(unsigned: request, at: time)
        }
        guard jws.algorithm != nil else {
            throw .invalidRequestObject("the Request Object alg is not ES256, ES384, ES512 or EdDSA")
        }
        // Who signed first; only then read what they asked.
        let signer = try authenticate(jws, clientID: AuthorizationRequest.clientIdentifier(claims), at: time)
        let request = try AuthorizationRequest(parameters: claims)
        try checkValidity(request, walletNonce: walletNonce, at: time)
        return try accept(request, signer: signer)
    }

    /// Checks a request that came as plain parameters (or as an unsecured Request Object).
    /// Only `redirect_uri:` verifiers and pre-registered verifiers without a key may send
    /// those.
    public func verify(unsigned request: AuthorizationRequest, at time: Date = Date()) throws(AuthorizationError)
        -> VerifiedAuthorizationRequest
    {
        let clientID = request.clientID
        switch clientID.prefix {
        case .redirectURI:
            guard request.responseURI == clientID.value else {
                throw .invalidRequest("response_uri differs from the redirect_uri client identifier")
            }
            return VerifiedAuthorizationRequest(
                request: request,
                requester: requester(request, name: request.clientMetadata?.clientName, auth: .unauthenticated),
                isSigned: false, certificateChain: [])
        case .preRegistered:
            let verifier = try preRegistered(request)
            guard !verifier.requiresSignedRequests else {
                throw .invalidRequest("this pre-registered verifier must sign its requests")
            }
            var effective = request
            effective.clientMetadata = verifier.clientMetadata ?? request.clientMetadata
            return VerifiedAuthorizationRequest(
                request: effective, requester: requester(request, name: verifier.name, auth: .unauthenticated),
                isSigned: false, certificateChain: [])
        case .x509SanDNS, .x509Hash, .decentralizedIdentifier, .verifierAttestation:
            throw .invalidRequest("requests with client_id prefix \(clientID.prefix.rawValue) must be signed")
        case .origin, .openIDFederation:
            throw Self.unsupported(clientID.prefix)
        }
    }

    /// Checks that a Request Object fetched with a POST echoes the `wallet_nonce` sent
    /// (OpenID4VP 1.0 section 5.10.1).
    public static func checkWalletNonce(_ request: AuthorizationRequest, sent: String?) throws(AuthorizationError) {
        guard let sent else { return }
        guard request.walletNonce == sent else {
            throw .invalidRequest("the Request Object does not echo the wallet_nonce")
        }
    }

    // MARK: - Signed requests

    /// What the signature proved.
    private struct Signer {
        var authentication: RequesterAuthentication
        var chain: [Certificate]
        var preRegistered: PreRegisteredVerifier?
    }

    private func checkValidity(_ request: AuthorizationRequest, walletNonce: String?, at time: Date)
        throws(AuthorizationError)
    {
        try Self.checkWalletNonce(request, sent: walletNonce)
        if let expiresAt = request.expiresAt, expiresAt.addingTimeInterval(configuration.clockSkew) < time {
            throw .invalidRequestObject("the Request Object has expired")
        }
        if let notBefore = request.notBefore, notBefore.addingTimeInterval(-configuration.clockSkew) > time {
            throw .invalidRequestObject("the Request Object is not valid yet")
        }
    }

    /// Checks the signature by the rules of the client identifier prefix.
    private func authenticate(_ jws: JWS, clientID: ClientIdentifier, at time: Date) throws(AuthorizationError)
        -> Signer
    {
        switch clientID.prefix {
        case .redirectURI:
            throw .invalidRequest("requests with client_id prefix redirect_uri must not be signed")
        case .origin, .openIDFederation, .verifierAttestation:
            throw Self.unsupported(clientID.prefix)
        case .x509SanDNS:
            let (chain, auth) = try verifyCertificateSigner(jws, at: time)
            let host = clientID.value.lowercased()
            guard chain[0].dnsSubjectAlternativeNames.contains(where: { $0.lowercased() == host }) else {
                throw .invalidRequest("the client_id is not a DNS subject alternative name of the signing certificate")
            }
            return Signer(authentication: auth, chain: chain)
        case .x509Hash:
            let (chain, auth) = try verifyCertificateSigner(jws, at: time)
            guard Base64URL.encode(chain[0].sha256Fingerprint) == clientID.value else {
                throw .invalidRequest("the client_id is not the x509_hash of the signing certificate")
            }
            return Signer(authentication: auth, chain: chain)
        case .decentralizedIdentifier:
            let did = clientID.value
            guard DecentralizedIdentifier.keyIDMatches(jws.keyID, did: did) else {
                throw .invalidRequest("the Request Object kid does not refer to the client's DID")
            }
            try verifySignature(jws, key: DecentralizedIdentifier.publicKey(of: did))
            return Signer(
                authentication: .untrusted(
                    reason: "signed with the key of a decentralized identifier, not by a trusted party"), chain: [])
        case .preRegistered:
            guard let verifier = configuration.preRegistered.first(where: { $0.clientID == clientID.raw }) else {
                throw .invalidRequest("the client_id is not a known verifier and has no supported prefix")
            }
            if let jwk = verifier.publicKey {
                let key: PublicKey
                do {
                    key = try jwk.publicKey()
                } catch {
                    throw AuthorizationError(.serverError, "the registered key of this verifier is unusable")
                }
                try verifySignature(jws, key: key)
                return Signer(
                    authentication: .trusted(anchor: "registered key of \(verifier.name)"), chain: [],
                    preRegistered: verifier)
            }
            guard !verifier.trustAnchors.isEmpty else {
                throw .invalidRequest("the request is signed but no key is registered for this verifier")
            }
            let chain = try certificateChain(jws)
            try verifySignature(jws, key: leafKey(chain))
            let result = CertificateChainValidator.validate(chain: chain, anchors: verifier.trustAnchors, at: time)
            guard result.isValid, let anchor = result.trustAnchor else {
                throw .invalidRequest("the signing certificate does not chain to this verifier's registered roots")
            }
            return Signer(authentication: .trusted(anchor: anchor.subject), chain: chain, preRegistered: verifier)
        }
    }

    /// The rules that need the signed parameters.
    private func accept(_ request: AuthorizationRequest, signer: Signer) throws(AuthorizationError)
        -> VerifiedAuthorizationRequest
    {
        let clientID = request.clientID
        var effective = request
        let name: String?
        switch clientID.prefix {
        case .x509SanDNS:
            guard request.responseURIHost == clientID.value.lowercased() else {
                throw .invalidRequest("the response_uri host differs from the x509_san_dns client identifier")
            }
            name = request.clientMetadata?.clientName ?? signer.chain.first.flatMap { Self.commonName($0.subject) }
        case .preRegistered:
            let verifier = try preRegistered(request)
            effective.clientMetadata = verifier.clientMetadata ?? request.clientMetadata
            name = verifier.name
        default:
            name = request.clientMetadata?.clientName ?? signer.chain.first.flatMap { Self.commonName($0.subject) }
        }
        return VerifiedAuthorizationRequest(
            request: effective,
            requester: requester(request, name: name, auth: signer.authentication, chain: signer.chain),
            isSigned: true, certificateChain: signer.chain)
    }

    /// The `x5c` chain, the signature by its leaf, and the chain's trust at `time`.
    private func verifyCertificateSigner(_ jws: JWS, at time: Date) throws(AuthorizationError) -> (
        [Certificate], RequesterAuthentication
    ) {
        let chain = try certificateChain(jws)
        try verifySignature(jws, key: leafKey(chain))
        let result = CertificateChainValidator.validate(chain: chain, anchors: configuration.trustAnchors, at: time)
        if result.isValid, let anchor = result.trustAnchor {
            return (chain, .trusted(anchor: anchor.subject))
        }
        guard configuration.allowUntrustedCertificates else {
            throw .invalidRequest("the signing certificate does not chain to a trusted verifier root")
        }
        return (chain, .untrusted(reason: result.failure ?? "no trusted verifier root"))
    }

    private func certificateChain(_ jws: JWS) throws(AuthorizationError) -> [Certificate] {
        let chain: [Certificate]
        do {
            chain = try jws.certificateChain()
        } catch {
            throw .invalidRequestObject("the Request Object x5c header is malformed")
        }
        guard !chain.isEmpty else { throw .invalidRequest("the Request Object has no x5c certificate chain") }
        return chain
    }

    private func leafKey(_ chain: [Certificate]) throws(AuthorizationError) -> PublicKey {
        do {
            return try chain[0].publicKey
        } catch {
            throw .invalidRequestObject("the signing certificate's key is not supported")
        }
    }

    private func verifySignature(_ jws: JWS, key: PublicKey) throws(AuthorizationError) {
        do {
            try jws.verify(with: key)
        } catch .invalidSignature {
            throw .invalidRequestObject("the Request Object signature does not verify")
        } catch {
            throw .invalidRequestObject("the Request Object signature algorithm does not fit the key")
        }
    }

    // MARK: - Helpers

    private func preRegistered(_ request: AuthorizationRequest) throws(AuthorizationError) -> PreRegisteredVerifier {
        guard let verifier = configuration.preRegistered.first(where: { $0.clientID == request.clientID.raw }) else {
            throw .invalidRequest("the client_id is not a known verifier and has no supported prefix")
        }
        guard verifier.responseURIs.contains(request.responseURI) else {
            throw .invalidRequest("the response_uri is not registered for this verifier")
        }
        if verifier.clientMetadata != nil, request.clientMetadata != nil {
            throw AuthorizationError(.invalidClient, "client_metadata sent for a verifier with registered metadata")
        }
        return verifier
    }

    private func requester(
        _ request: AuthorizationRequest, name: String?, auth: RequesterAuthentication, chain: [Certificate] = []
    ) -> Requester {
        Requester(
            displayName: name ?? request.clientID.raw, identifier: request.clientID.raw, authentication: auth,
            certificateChain: chain.map(\.der))
    }

    private static func unsupported(_ prefix: ClientIdentifier.Prefix) -> AuthorizationError {
        switch prefix {
        case .origin:
            return .invalidRequest("the client_id prefix origin is reserved for the Digital Credentials API")
        default:
            return .invalidRequest("the client_id prefix \(prefix.rawValue) is not supported")
        }
    }

    /// `oauth-authz-req+jwt`, optionally with `application/`, any case (RFC 7515 section 4.1.9).
    static func isRequestObjectType(_ type: String) -> Bool {
        let lower = type.lowercased()
        return lower == requestObjectType || lower == "application/" + requestObjectType
    }

    /// The CN of an RFC 2253 subject ("CN=verifier,O=Example" → "verifier").
    static func commonName(_ subject: String) -> String? {
        subject.split(separator: ",").first { $0.hasPrefix("CN=") }.map { String($0.dropFirst(3)) }
    }
}

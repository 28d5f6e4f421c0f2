import Consent
import Foundation
import ISO18013
import JOSE
import MdocCrypto
import OpenID4VCI
import SecureArea
import Wallet

/// One run of the issuance flow, with its HTTPS client and DPoP state.
struct IssuanceFlow {
    let issuance: CredentialIssuance
    let fetcher: HTTPFetcher
    let store: CredentialStore
    let consent: any ConsentPrompt
    let transactionCode: CredentialIssuance.TransactionCodeSource
    let events: @Sendable (CredentialIssuance.Event) -> Void

    var dpop: DPoPKey?
    /// Encrypted requests and responses, when the issuer offers them.
    var encryption: MessageEncryption?
    /// `iss` of key proofs: the client ID in the authorization code flow, none in anonymous
    /// pre-authorized access.
    var proofIssuer: String?
    /// The last DPoP nonce each host sent.
    var dpopNonces: [String: String] = [:]
    /// Where endpoints the issuer's metadata (and its authorization server's) names may lead:
    /// public addresses, and the class of the credential issuer's own address once its
    /// metadata came from there.
    var remote = EndpointPolicy(namedBy: "the issuer", partyAddress: nil)
    var warnings: [String] = []

    init(
        issuance: CredentialIssuance, fetcher: HTTPFetcher, store: CredentialStore, consent: any ConsentPrompt,
        transactionCode: @escaping CredentialIssuance.TransactionCodeSource,
        events: @escaping @Sendable (CredentialIssuance.Event) -> Void
    ) {
        self.issuance = issuance
        self.fetcher = fetcher
        self.store = store
        self.consent = consent
        self.transactionCode = transactionCode
        self.events = events
    }

    mutating func run(_ text: String) async throws(CredentialIssuanceError) -> CredentialIssuance.Outcome {
        // 1. The offer.
        let offer = try await obtainOffer(text)
        let grant = offer.preAuthorizedCode
        // Without a pre-authorized code the authorization code flow is used, also when the
        // offer names no grant (OpenID4VCI section 4.1.1).
        if grant == nil, !issuance.authorizationCodeFlow {
            throw .protocolError(
                .unsupported(
                    "the offer has no pre-authorized code: it needs the authorization code flow (a browser), which is not offered here"
                ))
        }
        // 2. Metadata.
        let issuerHost = IssuerIdentifier.host(offer.credentialIssuer) ?? "-"
        guard
            let metadataURL = IssuerIdentifier.wellKnown(
                offer.credentialIssuer, suffix: CredentialIssuerMetadata.wellKnownSuffix)
        else { throw .protocolError(.invalidOffer("credential_issuer is not a valid URL")) }
        // The credential issuer is the party the user chose: its own address decides which
        // addresses the endpoints it names may have.
        let metadataResponse = try await get(
            metadataURL, what: "fetching the issuer's metadata", accept: SignedIssuerMetadata.accept)
        remote = EndpointPolicy(namedBy: "the issuer", partyAddress: metadataResponse.remoteAddress)
        let metadata: CredentialIssuerMetadata
        do {
            metadata = try SignedIssuerMetadata.metadata(
                body: metadataResponse.body, contentType: metadataResponse.contentType, issuer: offer.credentialIssuer,
                trustAnchors: issuance.trustAnchors, at: issuance.now())
        } catch {
            throw .protocolError(error)
        }
        let issuerName = metadata.displayName ?? issuerHost
        events(.issuer(name: issuerName, host: issuerHost))
        do {
            encryption = try MessageEncryption(metadata: metadata)
        } catch {
            throw .protocolError(error)
        }
        var configurations: [CredentialConfiguration] = []
        for id in offer.credentialConfigurationIDs {
            guard let configuration = metadata.configurations[id] else {
                throw .protocolError(.invalidOffer("the offered configuration \(id) is not in the issuer's metadata"))
            }
            guard configuration.isReceivable else {
                throw .protocolError(
                    .unsupported(
                        "configuration \(id) has format \(configuration.format): only mso_mdoc configurations with a doctype and dc+sd-jwt ones with a vct are received"
                    ))
            }
            if let algorithms = configuration.jwtProofAlgorithms, !algorithms.contains("ES256") {
                throw .protocolError(.unsupported("configuration \(id) takes no ES256 jwt proof"))
            }
            configurations.append(configuration)
        }
        guard issuance.batch >= 1 else { throw .protocolError(.unsupported("--batch must be 1 or more")) }
        if issuance.batch > metadata.batchSize {
            throw .protocolError(
                .unsupported(
                    "\(issuance.batch) copies were asked for but the issuer issues at most \(metadata.batchSize) at once (batch_size)"
                ))
        }
        let serverIdentifier =
            grant?.authorizationServer ?? offer.authorizationCode?.authorizationServer
            ?? metadata.authorizationServers.first ?? offer.credentialIssuer
        if let named = grant?.authorizationServer ?? offer.authorizationCode?.authorizationServer,
            !metadata.authorizationServers.isEmpty,
            !metadata.authorizationServers.contains(where: { CredentialIssuerMetadata.sameIdentifier($0, named) })
        {
            throw .protocolError(.invalidOffer("authorization_server is not one of the issuer's authorization_servers"))
        }
        let server = try await authorizationServer(serverIdentifier)

        // 3. Consent, before anything is requested.
        let source = IssuanceSource(
            issuer: metadata.credentialIssuer, issuerName: issuerName,
            notificationEndpoint: metadata.notificationEndpoint)
        let request = IssuanceConsent.request(
            issuer: metadata, configurations: configurations, tlsHost: issuerHost, copies: issuance.batch)
        let decision = await consent.decide(request)
        let accepted = configurations.filter { IssuanceConsent.accepts(decision, configuration: $0) }
        guard !accepted.isEmpty else {
            for configuration in configurations {
                try? store.recordIssuance(
                    from: source, docType: configuration.credentialType, decision: .declined)
            }
            return CredentialIssuance.Outcome(result: .declined, issuerName: issuerName)
        }

        do {
            let codeRequest = grant?.transactionCode.map {
                TransactionCodeRequest(
                    issuerName: issuerName, issuer: metadata.credentialIssuer, tlsHost: issuerHost, code: $0)
            }
            return try await issue(
                offer: offer, grant: grant, codeRequest: codeRequest, server: server, metadata: metadata,
                accepted: accepted, source: source, issuerName: issuerName)
        } catch {
            // The history records an issuance that failed after consent (a refusal by our
            // checks is recorded where it happens, with its reason).
            if case .refused = error {
            } else {
                for configuration in accepted {
                    try? store.recordIssuance(
                        from: source, docType: configuration.credentialType,
                        decision: .failed(reason: Self.historyReason(error)))
                }
            }
            throw error
        }
    }

    /// What the history says of a failure: the kind of failure and the issuer's OAuth error
    /// code, never a value.
    static func historyReason(_ error: CredentialIssuanceError) -> String {
        switch error {
        case .protocolError(.issuer(let endpoint, let oauth)): return "the \(endpoint) answered \(oauth.error)"
        case .protocolError: return "the issuer's answer could not be used"
        case .exchange(let what, _), .unexpectedStatus(let what, _, _): return "\(what) failed"
        case .secureArea: return "the secure area could not make or use a key"
        case .transactionCodeUnavailable: return "no transaction code was given"
        case .store: return "the store could not be written"
        case .setup: return "the HTTPS client could not be set up"
        case .refused: return "refused by the holder's checks"
        }
    }

    /// Steps 4 to 6, after consent.
    private mutating func issue(
        offer: CredentialOffer, grant: PreAuthorizedCodeGrant?, codeRequest: TransactionCodeRequest?,
        server: AuthorizationServerMetadata, metadata: CredentialIssuerMetadata, accepted: [CredentialConfiguration],
        source: IssuanceSource,
        issuerName: String
    ) async throws(CredentialIssuanceError) -> CredentialIssuance.Outcome {
        // 4. The access token.
        if server.usesDPoP {
            do {
                dpop = try DPoPKey()
            } catch {
                throw .protocolError(error)
            }
        }
        let token: TokenResponse
        if let grant {
            token = try await preAuthorizedToken(grant, codeRequest: codeRequest, server: server)
        } else {
            token = try await authorizationCodeToken(
                server: server, issuerState: offer.authorizationCode?.issuerState,
                configurationIDs: accepted.map(\.id), credentialIssuer: metadata.credentialIssuer)
        }
        if dpop != nil, !token.isDPoP {
            throw .protocolError(
                .invalidResponse(endpoint: "token endpoint", "the token is not DPoP-bound although DPoP was used"))
        }

        // 5. and 6. The credentials.
        var ids: [String] = []
        var pending: [String] = []
        for configuration in accepted {
            switch try await receive(configuration, metadata: metadata, token: token, source: source) {
            case .stored(let stored): ids.append(contentsOf: stored)
            case .pending(let id): pending.append(id)
            }
        }
        var outcome = CredentialIssuance.Outcome(result: .received(ids), issuerName: issuerName)
        outcome.pending = pending
        outcome.warnings = warnings
        return outcome
    }

}

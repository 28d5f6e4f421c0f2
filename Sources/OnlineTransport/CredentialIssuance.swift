import Consent
import Foundation
import ISO18013
import JOSE
import MdocCrypto
import OpenID4VCI
import SecureArea
import Wallet

/// Receiving credentials with OpenID4VCI 1.0 over HTTPS, from the offer to the stored
/// credential:
///
/// 1. read the offer (``CredentialOfferURL``; by reference: GET `credential_offer_uri`);
/// 2. fetch the issuer's metadata and its authorization server's (RFC 8414, the OpenID
///    configuration as a fallback);
/// 3. ask for consent (who issues, what it will hold): a decline sends nothing further;
/// 4. get an access token with the pre-authorized code (and the transaction code when the
///    offer asks for one), with DPoP when the server supports it;
/// 5. per credential: make the keys in the secure area, get a `c_nonce`, send one `jwt`
///    proof per key, check every copy as a file import is checked, store all copies as one
///    credential or none;
/// 6. notify the issuer (`credential_accepted` / `credential_failure`) and record the history.
public struct CredentialIssuance: Sendable {
    /// What the flow reports while it runs (for the command line).
    public enum Event: Sendable {
        case fetchingOffer(host: String)
        case issuer(name: String, host: String)
        /// The user must open this URL (the authorization code flow): in a browser on this
        /// machine, or on a phone through a QR code. The redirect comes back to the listener.
        case openAuthorization(url: String)
        case requestingToken(host: String, dpop: Bool)
        case requestingCredential(docType: String, copies: Int)
        case stored(credentialID: String, docType: String, copies: Int)
        /// The issuer deferred issuance; polling every `interval` seconds.
        case deferred(docType: String, interval: Int)
        /// Not ready within the wait: kept in the store (`credentials receive --pending`).
        case keptPending(pendingID: String, docType: String)
        case notified(event: String)
    }

    /// What the user (or the caller) gives when the offer needs a transaction code: the
    /// offer's description of it in, the code out (nil: none given). The code is never logged.
    public typealias TransactionCodeSource = @Sendable (TransactionCodeDescription) async -> String?

    /// IACA certificates received credentials must chain to.
    public var trustAnchors: [Certificate]
    /// CA certificates for TLS beside the system trust store (`--tls-ca`).
    public var tlsCAs: [Certificate]
    /// The secure area new keys are made in (the store's default when nil).
    public var secureArea: SecureAreaName?
    /// How many copies of each credential to ask for (each bound to its own key).
    public var batch: Int
    public var limits: HTTPFetcher.Limits
    public var now: @Sendable () -> Date
    /// The holder's client identifier at authorization servers (authorization code flow).
    public var clientID: String
    /// The redirect URI of the authorization code flow: nil for a loopback listener on a
    /// random port; a loopback `http://127.0.0.1:PORT/PATH` to listen there (a relay forwards
    /// the redirect to it).
    public var redirectURI: String?
    /// How long the user has to authorize in the browser.
    public var authorizationTimeout: Duration
    /// How long a deferred issuance is polled before it is kept pending (`--wait`).
    public var wait: Duration

    public init(
        trustAnchors: [Certificate], tlsCAs: [Certificate] = [], secureArea: SecureAreaName? = nil, batch: Int = 1,
        limits: HTTPFetcher.Limits = HTTPFetcher.Limits(), clientID: String = "mdoc-holder",
        redirectURI: String? = nil, authorizationTimeout: Duration = .seconds(300), wait: Duration = .seconds(30),
        now: @escaping @Sendable () -> Date = { Date() }
    ) {
        self.wait = wait
        self.trustAnchors = trustAnchors
        self.tlsCAs = tlsCAs
        self.secureArea = secureArea
        self.batch = batch
        self.limits = limits
        self.clientID = clientID
        self.redirectURI = redirectURI
        self.authorizationTimeout = authorizationTimeout
        self.now = now
    }

    /// The result of one offer.
    public struct Outcome: Sendable {
        public enum Result: Sendable, Equatable {
            /// Stored: the new credential IDs, one per credential configuration.
            case received([String])
            /// The user or the policy declined: nothing was requested.
            case declined
        }

        public var result: Result
        public var issuerName: String
        /// Deferred issuances not ready within the wait, kept in the store.
        public var pending: [String] = []
        /// Things that went wrong without undoing the result (a notification not delivered).
        public var warnings: [String] = []
        /// Pending issuances that ended without a credential (resuming): what happened.
        public var failures: [String] = []
    }

    /// Runs one offer (as a QR code or link carries it).
    public func run(
        offer: String, store: CredentialStore, consent: any ConsentPrompt,
        transactionCode: @escaping TransactionCodeSource, events: @escaping @Sendable (Event) -> Void = { _ in }
    ) async throws(CredentialIssuanceError) -> Outcome {
        let fetcher: HTTPFetcher
        do {
            fetcher = try HTTPFetcher(additionalTrustRoots: tlsCAs, limits: limits)
        } catch {
            throw .setup(error)
        }
        let result: Result<Outcome, CredentialIssuanceError>
        do {
            var flow = IssuanceFlow(
                issuance: self, fetcher: fetcher, store: store, consent: consent, transactionCode: transactionCode,
                events: events)
            result = .success(try await flow.run(offer))
        } catch {
            result = .failure(error)
        }
        await fetcher.shutdown()
        return try result.get()
    }
}

extension CredentialIssuance {
    /// Tells the issuer of a deleted credential (`credential_deleted`, OpenID4VCI 1.0 section
    /// 11) with the Bearer token kept for it.
    public static func notifyDeleted(
        _ pending: PendingNotification, tlsCAs: [Certificate], limits: HTTPFetcher.Limits = HTTPFetcher.Limits()
    ) async throws(CredentialIssuanceError) {
        let fetcher: HTTPFetcher
        do {
            fetcher = try HTTPFetcher(additionalTrustRoots: tlsCAs, limits: limits)
        } catch {
            throw .setup(error)
        }
        let body = NotificationRequest(notificationID: pending.notificationID, event: .credentialDeleted).body
        let result: Result<HTTPResponse, HTTPFetchError>
        do {
            result = .success(
                try await fetcher.send(
                    pending.endpoint, method: "POST",
                    headers: [("Content-Type", "application/json"), ("Authorization", "Bearer \(pending.token)")],
                    body: body))
        } catch {
            result = .failure(error)
        }
        await fetcher.shutdown()
        let response: HTTPResponse
        do {
            response = try result.get()
        } catch {
            throw .exchange(what: "the credential_deleted notification", error)
        }
        guard response.isSuccess else {
            if let error = OAuthErrorResponse(body: response.body) {
                throw .protocolError(.issuer(endpoint: "notification endpoint", error))
            }
            throw .unexpectedStatus(
                what: "the credential_deleted notification", host: response.host, status: response.status)
        }
    }
}

extension CredentialIssuance {
    /// Resumes every pending deferred issuance of the store (`credentials receive --pending`):
    /// polls each for up to ``wait``, stores what is ready (checked as at issuance), drops what
    /// the issuer ended or our checks refused (with its keys), keeps the rest.
    public func resumePending(
        store: CredentialStore, events: @escaping @Sendable (Event) -> Void = { _ in }
    ) async throws(CredentialIssuanceError) -> Outcome {
        let fetcher: HTTPFetcher
        do {
            fetcher = try HTTPFetcher(additionalTrustRoots: tlsCAs, limits: limits)
        } catch {
            throw .setup(error)
        }
        var flow = IssuanceFlow(
            issuance: self, fetcher: fetcher, store: store, consent: AcceptingNothing(), transactionCode: { _ in nil },
            events: events)
        let result: Result<Outcome, CredentialIssuanceError>
        do {
            result = .success(try await flow.resumeAll())
        } catch {
            result = .failure(error)
        }
        await fetcher.shutdown()
        return try result.get()
    }
}

/// Resuming asks no one: consent was given when the offer was accepted.
private struct AcceptingNothing: ConsentPrompt {
    func decide(_ request: ConsentRequest) async -> ConsentDecision { .decline }
}

extension IssuanceFlow {
    mutating func resumeAll() async throws(CredentialIssuanceError) -> CredentialIssuance.Outcome {
        let all: [PendingIssuance]
        let keys: [StoredKey]
        do {
            all = try store.pendingIssuances()
            keys = try store.keys().map(\.key)
        } catch {
            throw .store(error)
        }
        var outcome = CredentialIssuance.Outcome(result: .received([]), issuerName: all.first?.issuerName ?? "-")
        var ids: [String] = []
        for pending in all {
            let proved = pending.keyIDs.compactMap { id in keys.first { $0.id == id } }
            guard proved.count == pending.keyIDs.count else {
                outcome.failures.append(
                    "pending \(pending.id) (\(pending.docType)): its keys are missing from the store")
                continue
            }
            dpop = nil
            if let dpopID = pending.dpopKeyID, let stored = keys.first(where: { $0.id == dpopID }) {
                do {
                    let key = try store.secureAreas.deviceKey(stored)
                    dpop = try DPoPKey(publicKey: key.publicKey) { input in
                        try key.signature(over: input, algorithm: .es256)
                    }
                } catch let error as SecureAreaError {
                    throw .secureArea(error)
                } catch {
                    throw .protocolError(.unsupported("the pending issuance's DPoP key cannot be used: \(error)"))
                }
            }
            let token = TokenResponse(accessToken: pending.accessToken, tokenType: pending.tokenType)
            let source = IssuanceSource(
                issuer: pending.issuer, issuerName: pending.issuerName,
                notificationEndpoint: pending.notificationEndpoint)
            do {
                let response = try await poll(
                    pending.endpoint, transactionID: pending.transactionID, interval: Int(pending.interval),
                    token: token, firstAt: 0)
                switch response {
                case .issued(let credentials, let notificationID):
                    ids.append(
                        try await storeCopies(
                            credentials, notificationID: notificationID, keys: proved, docType: pending.docType,
                            token: token, source: source, pendingID: pending.id))
                case .deferred:
                    events(.keptPending(pendingID: pending.id, docType: pending.docType))
                    outcome.pending.append(pending.id)
                }
            } catch {
                // Ended by the issuer or refused by our checks: the pending issuance and its keys go.
                if case .exchange = error {
                    outcome.failures.append("pending \(pending.id) (\(pending.docType)) kept: \(error)")
                    outcome.pending.append(pending.id)
                    continue
                }
                outcome.failures.append("pending \(pending.id) (\(pending.docType)) ended: \(error)")
                if let removed = try? store.removePending(id: pending.id, keepKeys: false) {
                    for key in removed { try? store.secureAreas.area(key.area).deleteKey(key) }
                }
            }
        }
        outcome.result = .received(ids)
        outcome.warnings = warnings
        return outcome
    }
}

/// One run of the issuance flow, with its HTTPS client and DPoP state.
private struct IssuanceFlow {
    let issuance: CredentialIssuance
    let fetcher: HTTPFetcher
    let store: CredentialStore
    let consent: any ConsentPrompt
    let transactionCode: CredentialIssuance.TransactionCodeSource
    let events: @Sendable (CredentialIssuance.Event) -> Void

    var dpop: DPoPKey?
    /// `iss` of key proofs: the client ID in the authorization code flow, none in anonymous
    /// pre-authorized access.
    var proofIssuer: String?
    /// The last DPoP nonce each host sent.
    var dpopNonces: [String: String] = [:]
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
        // 2. Metadata.
        let issuerHost = IssuerIdentifier.host(offer.credentialIssuer) ?? "-"
        guard
            let metadataURL = IssuerIdentifier.wellKnown(
                offer.credentialIssuer, suffix: CredentialIssuerMetadata.wellKnownSuffix)
        else { throw .protocolError(.invalidOffer("credential_issuer is not a valid URL")) }
        let metadataResponse = try await get(metadataURL, what: "fetching the issuer's metadata")
        let metadata: CredentialIssuerMetadata
        do {
            metadata = try CredentialIssuerMetadata(body: metadataResponse.body, issuer: offer.credentialIssuer)
        } catch {
            throw .protocolError(error)
        }
        let issuerName = metadata.displayName ?? issuerHost
        events(.issuer(name: issuerName, host: issuerHost))
        if metadata.encryptionRequired {
            throw .protocolError(.unsupported("the issuer requires encrypted credential responses"))
        }
        var configurations: [CredentialConfiguration] = []
        for id in offer.credentialConfigurationIDs {
            guard let configuration = metadata.configurations[id] else {
                throw .protocolError(.invalidOffer("the offered configuration \(id) is not in the issuer's metadata"))
            }
            guard configuration.isMdoc else {
                throw .protocolError(
                    .unsupported("configuration \(id) has format \(configuration.format): only mso_mdoc is received"))
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
                    from: source, docType: configuration.docType ?? configuration.id, decision: .declined)
            }
            return CredentialIssuance.Outcome(result: .declined, issuerName: issuerName)
        }

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
            token = try await preAuthorizedToken(grant, server: server)
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
            case .stored(let id): ids.append(id)
            case .pending(let id): pending.append(id)
            }
        }
        var outcome = CredentialIssuance.Outcome(result: .received(ids), issuerName: issuerName)
        outcome.pending = pending
        outcome.warnings = warnings
        return outcome
    }

    // MARK: - Step 4: the access token

    private mutating func preAuthorizedToken(_ grant: PreAuthorizedCodeGrant, server: AuthorizationServerMetadata)
        async throws(CredentialIssuanceError) -> TokenResponse
    {
        var code: String?
        if let description = grant.transactionCode {
            guard let given = await transactionCode(description) else {
                throw .transactionCodeUnavailable(
                    "none was given (--tx-code-file FILE, - for standard input, or answer on the terminal)")
            }
            do {
                try description.check(given)
            } catch {
                throw .protocolError(error)
            }
            code = given
        }
        return try await requestToken(
            TokenRequest.preAuthorizedCode(grant.preAuthorizedCode, transactionCode: code), server: server)
    }

    private mutating func requestToken(_ request: TokenRequest, server: AuthorizationServerMetadata)
        async throws(CredentialIssuanceError) -> TokenResponse
    {
        events(.requestingToken(host: IssuerIdentifier.host(server.tokenEndpoint) ?? "-", dpop: dpop != nil))
        let answer = try await send(
            server.tokenEndpoint, what: "the token request", endpoint: "token endpoint",
            contentType: "application/x-www-form-urlencoded", body: Array(request.body.utf8), token: nil)
        do {
            return try TokenResponse(body: answer.body)
        } catch {
            throw .protocolError(error)
        }
    }

    /// The authorization code flow: a loopback listener for the redirect, PKCE, a pushed
    /// authorization request when the server has an endpoint for it, the URL for the user, the
    /// redirect (state and iss checked), the code exchanged for a token.
    private mutating func authorizationCodeToken(
        server: AuthorizationServerMetadata, issuerState: String?, configurationIDs: [String], credentialIssuer: String
    ) async throws(CredentialIssuanceError) -> TokenResponse {
        guard let authorizationEndpoint = server.authorizationEndpoint else {
            throw .protocolError(
                .unsupported(
                    "the offer has no pre-authorized code and the authorization server no authorization_endpoint"))
        }
        if !server.codeChallengeMethods.isEmpty, !server.codeChallengeMethods.contains(PKCE.method) {
            throw .protocolError(.unsupported("the authorization server does not take PKCE S256"))
        }
        let (port, path) = try Self.listenerAddress(issuance.redirectURI)
        let listener: LoopbackRedirectListener
        do {
            listener = try await LoopbackRedirectListener.start(port: port, path: path)
        } catch {
            throw .exchange(what: "listening for the authorization redirect", error)
        }
        let authorization = CodeAuthorization(
            clientID: issuance.clientID, redirectURI: issuance.redirectURI ?? listener.redirectURI,
            issuerState: issuerState, configurationIDs: configurationIDs,
            credentialIssuer: CredentialIssuerMetadata.sameIdentifier(server.issuer, credentialIssuer)
                ? nil : credentialIssuer)
        let url: String
        do {
            url = try await authorizationURL(authorization, server: server, endpoint: authorizationEndpoint)
        } catch {
            await listener.close()
            throw error
        }
        events(.openAuthorization(url: url))
        let query: String
        do {
            query = try await listener.waitForRedirect(timeout: issuance.authorizationTimeout)
        } catch {
            throw .exchange(what: "waiting for the authorization redirect", error)
        }
        let code: String
        do {
            code = try authorization.code(fromRedirectQuery: query, authorizationServer: server.issuer)
        } catch {
            throw .protocolError(error)
        }
        proofIssuer = issuance.clientID
        return try await requestToken(
            TokenRequest.authorizationCode(
                code, codeVerifier: authorization.pkce.verifier, redirectURI: authorization.redirectURI,
                clientID: issuance.clientID), server: server)
    }

    /// The URL the user opens; with a pushed authorization request first when the server has
    /// an endpoint for it.
    private mutating func authorizationURL(
        _ authorization: CodeAuthorization, server: AuthorizationServerMetadata, endpoint: String
    ) async throws(CredentialIssuanceError) -> String {
        var requestURI: String?
        if let par = server.pushedAuthorizationRequestEndpoint {
            let answer = try await send(
                par, what: "the pushed authorization request", endpoint: "pushed authorization request endpoint",
                contentType: "application/x-www-form-urlencoded", body: Array(authorization.pushedRequestBody.utf8),
                token: nil)
            do {
                requestURI = try CodeAuthorization.pushedRequestURI(body: answer.body)
            } catch {
                throw .protocolError(error)
            }
        } else if server.requirePushedAuthorizationRequests {
            throw .protocolError(
                .invalidMetadata("pushed authorization requests are required but there is no endpoint for them"))
        }
        do {
            return try authorization.authorizationURL(endpoint: endpoint, requestURI: requestURI)
        } catch {
            throw .protocolError(error)
        }
    }

    /// Where the listener listens: a random port at `/callback`, or the loopback address of
    /// `--redirect-uri`.
    private static func listenerAddress(_ redirectURI: String?) throws(CredentialIssuanceError) -> (Int, String) {
        guard let redirectURI else { return (0, "/callback") }
        guard let components = URLComponents(string: redirectURI), components.scheme == "http",
            components.host == "127.0.0.1", let port = components.port, port > 0
        else {
            throw .protocolError(
                .unsupported(
                    "--redirect-uri must be a loopback http://127.0.0.1:PORT/PATH that the redirect reaches (a relay forwards it there)"
                ))
        }
        return (port, components.path.isEmpty ? "/" : components.path)
    }

    // MARK: - Step 1: the offer

    private func obtainOffer(_ text: String) async throws(CredentialIssuanceError) -> CredentialOffer {
        let url: CredentialOfferURL
        do {
            url = try CredentialOfferURL(text)
        } catch {
            throw .protocolError(error)
        }
        switch url {
        case .byValue(let offer):
            return offer
        case .byReference(let uri):
            events(.fetchingOffer(host: IssuerIdentifier.host(uri) ?? "-"))
            let response = try await get(uri, what: "fetching the credential offer")
            guard let json = try? JSONValue(parsing: response.body) else {
                throw .protocolError(.invalidOffer("credential_offer_uri did not answer with JSON"))
            }
            do {
                return try CredentialOffer(json: json)
            } catch {
                throw .protocolError(error)
            }
        }
    }

    // MARK: - Step 2: the authorization server

    private func authorizationServer(_ identifier: String) async throws(CredentialIssuanceError)
        -> AuthorizationServerMetadata
    {
        guard let oauthURL = IssuerIdentifier.wellKnown(identifier, suffix: AuthorizationServerMetadata.wellKnownSuffix)
        else { throw .protocolError(.invalidMetadata("the authorization server is not a valid URL")) }
        var response = try await exchange(what: "fetching the authorization server metadata") {
            () async throws(HTTPFetchError) in
            try await fetcher.get(oauthURL, accept: "application/json")
        }
        if response.status == 404 {
            let fallback = IssuerIdentifier.openIDConfiguration(identifier)
            response = try await exchange(what: "fetching the OpenID configuration") {
                () async throws(HTTPFetchError) in
                try await fetcher.get(fallback, accept: "application/json")
            }
        }
        guard response.status == 200 else {
            throw .unexpectedStatus(
                what: "the authorization server metadata", host: response.host, status: response.status)
        }
        do {
            return try AuthorizationServerMetadata(body: response.body, issuer: identifier)
        } catch {
            throw .protocolError(error)
        }
    }

    // MARK: - Step 5: one credential

    /// How one credential ended: stored, or kept pending (deferred).
    enum Received {
        case stored(String)
        case pending(String)
    }

    private mutating func receive(
        _ configuration: CredentialConfiguration, metadata: CredentialIssuerMetadata, token: TokenResponse,
        source: IssuanceSource
    ) async throws(CredentialIssuanceError) -> Received {
        let docType = configuration.docType ?? configuration.id
        let area: any SecureArea
        do {
            area = try store.secureAreas.area(issuance.secureArea ?? store.secureAreas.defaultArea)
        } catch {
            throw .secureArea(error)
        }
        var keys: [StoredKey] = []
        for _ in 0..<issuance.batch {
            do {
                keys.append(try area.createKey(KeySettings()))
            } catch {
                Self.discard(keys, in: area)
                throw .secureArea(error)
            }
        }
        do {
            return try await receive(
                configuration, docType: docType, keys: keys, metadata: metadata, token: token, source: source)
        } catch {
            Self.discard(keys, in: area)
            throw error
        }
    }

    private mutating func receive(
        _ configuration: CredentialConfiguration, docType: String, keys: [StoredKey],
        metadata: CredentialIssuerMetadata, token: TokenResponse, source: IssuanceSource
    ) async throws(CredentialIssuanceError) -> Received {
        let target: CredentialRequest.Target =
            token.credentialIdentifiers[configuration.id]?.first.map { .identifier($0) }
            ?? .configuration(configuration.id)
        events(.requestingCredential(docType: docType, copies: keys.count))
        var answer: HTTPResponse?
        for attempt in 0..<2 {
            let nonce = try await cNonce(metadata)
            let proofs = try makeProofs(keys, audience: metadata.credentialIssuer, nonce: nonce)
            let body = CredentialRequest(target: target, jwtProofs: proofs).body
            do {
                answer = try await send(
                    metadata.credentialEndpoint, what: "the credential request", endpoint: "credential endpoint",
                    contentType: "application/json", body: body, token: token)
                break
            } catch .protocolError(.issuer(_, let error)) where error.error == "invalid_nonce" && attempt == 0 {
                // The c_nonce went stale between the nonce and the credential request: once more.
                continue
            }
        }
        guard let answer else {
            throw .protocolError(.invalidResponse(endpoint: "credential endpoint", "no answer"))
        }
        let response: CredentialResponse
        do {
            response = try CredentialResponse(body: answer.body)
        } catch {
            throw .protocolError(error)
        }
        switch response {
        case .issued(let credentials, let notificationID):
            return .stored(
                try await storeCopies(
                    credentials, notificationID: notificationID, keys: keys, docType: docType, token: token,
                    source: source, pendingID: nil))
        case .deferred(let transactionID, let interval):
            guard let endpoint = metadata.deferredCredentialEndpoint else {
                throw .protocolError(
                    .invalidResponse(
                        endpoint: "credential endpoint", "a deferred answer but no deferred_credential_endpoint"))
            }
            events(.deferred(docType: docType, interval: interval))
            let polled = try await poll(
                endpoint, transactionID: transactionID, interval: interval, token: token, firstAt: interval)
            switch polled {
            case .issued(let credentials, let notificationID):
                return .stored(
                    try await storeCopies(
                        credentials, notificationID: notificationID, keys: keys, docType: docType, token: token,
                        source: source, pendingID: nil))
            case .deferred(let transactionID, let interval):
                let id = try keepPending(
                    PendingIssuance(
                        id: StoredKey.newID(), issuer: source.issuer, issuerName: source.issuerName, docType: docType,
                        transactionID: transactionID, endpoint: endpoint,
                        notificationEndpoint: source.notificationEndpoint, accessToken: token.accessToken,
                        tokenType: token.tokenType, dpopKeyID: nil, keyIDs: keys.map(\.id), interval: Double(interval)),
                    keys: keys)
                events(.keptPending(pendingID: id, docType: docType))
                return .pending(id)
            }
        }
    }

    /// Keeps a deferred issuance in the store with its keys and, for a DPoP-bound token, the
    /// DPoP key (wrapped in the software area).
    private func keepPending(_ pending: PendingIssuance, keys: [StoredKey]) throws(CredentialIssuanceError) -> String {
        var dpopKey: StoredKey?
        if let key = dpop?.ephemeralKey {
            do {
                dpopKey = try store.secureAreas.software.importKey(key, passphrase: nil)
            } catch {
                throw .secureArea(error)
            }
        }
        do {
            return try store.savePending(pending, keys: keys, dpopKey: dpopKey)
        } catch {
            throw .store(error)
        }
    }

    /// Polls the deferred credential endpoint every `interval` seconds (the issuer may change
    /// it) until the credentials come or the wait is over; the first poll after `firstAt`
    /// seconds.
    fileprivate mutating func poll(
        _ endpoint: String, transactionID: String, interval: Int, token: TokenResponse, firstAt: Int
    ) async throws(CredentialIssuanceError) -> CredentialResponse {
        let deadline = ContinuousClock.now + issuance.wait
        var transactionID = transactionID
        var interval = max(interval, 1)
        var delay = max(firstAt, 0)
        while ContinuousClock.now + .seconds(delay) <= deadline {
            if delay > 0 { try? await Task.sleep(for: .seconds(delay)) }
            delay = interval
            let answer: HTTPResponse
            do {
                answer = try await send(
                    endpoint, what: "the deferred credential request", endpoint: "deferred credential endpoint",
                    contentType: "application/json", body: DeferredCredentialRequest(transactionID: transactionID).body,
                    token: token)
            } catch .protocolError(.issuer(_, let error)) where error.error == "issuance_pending" {
                continue
            }
            let response: CredentialResponse
            do {
                response = try CredentialResponse(body: answer.body, endpoint: "deferred credential endpoint")
            } catch {
                throw .protocolError(error)
            }
            switch response {
            case .issued: return response
            case .deferred(let id, let next):
                transactionID = id
                interval = max(next, 1)
                delay = interval
            }
        }
        return .deferred(transactionID: transactionID, interval: interval)
    }

    /// Checks the credentials of one configuration and stores them (all copies or none);
    /// notifies the issuer either way.
    fileprivate mutating func storeCopies(
        _ credentials: [String], notificationID: String?, keys: [StoredKey], docType: String, token: TokenResponse,
        source: IssuanceSource, pendingID: String?
    ) async throws(CredentialIssuanceError) -> String {
        var source = source
        source.notificationID = notificationID
        source.notificationToken = token.isDPoP ? nil : token.accessToken
        let copies: [ReceivedCopy]
        do {
            copies = try Self.pair(credentials, with: keys)
        } catch {
            let notified = await notify(
                source, token: token, event: .credentialFailure, description: "malformed credential")
            throw .refused(docType: docType, error, notified: notified)
        }
        let id: String
        do {
            id = try store.receive(
                copies, docType: docType, from: source, trustAnchors: issuance.trustAnchors, at: issuance.now(),
                completingPending: pendingID)
        } catch {
            let notified = await notify(
                source, token: token, event: .credentialFailure, description: "the holder's checks refused it")
            try? store.recordIssuance(
                from: source, docType: docType, decision: .failed(reason: "refused: \(Self.reason(error))"))
            throw .refused(docType: docType, error, notified: notified)
        }
        events(.stored(credentialID: id, docType: docType, copies: copies.count))
        _ = await notify(source, token: token, event: .credentialAccepted, description: nil)
        return id
    }

    /// The words of a refusal for the history: the kind of check that failed, no values.
    private static func reason(_ error: WalletError) -> String {
        switch error {
        case .issuerAuthenticationFailed: return "issuer data authentication failed"
        case .expired: return "expired"
        case .notYetValid: return "not yet valid"
        case .docTypeMismatch: return "another docType than offered"
        case .keyDoesNotMatch, .deviceKeyMismatch: return "bound to another key than the one proved"
        case .malformedDocument: return "malformed"
        case .alreadyStored: return "already stored"
        default: return "\(error)"
        }
    }

    /// Decodes each credential (base64url IssuerSigned) and pairs it with the key its MSO
    /// names; a credential whose MSO names none of our keys keeps its position's key (the
    /// store's check then refuses it).
    private static func pair(_ credentials: [String], with keys: [StoredKey]) throws(WalletError) -> [ReceivedCopy] {
        guard credentials.count == keys.count else {
            throw .malformedDocument(
                document: 1, reason: "the issuer sent \(credentials.count) credentials for \(keys.count) keys")
        }
        var remaining = keys
        var copies: [ReceivedCopy] = []
        for (n, text) in credentials.enumerated() {
            guard let bytes = JOSEBase64URL.decode(text) else {
                throw .malformedDocument(document: n + 1, reason: "the credential is not base64url")
            }
            let msoKey = try? IssuerSigned(bytes: bytes).mobileSecurityObject().mso.deviceKey.publicKey()
            let index =
                remaining.firstIndex { key in msoKey.map { (try? key.publicKey()) == $0 } ?? false } ?? 0
            copies.append(ReceivedCopy(issuerSignedBytes: bytes, key: remaining.remove(at: index)))
        }
        return copies
    }

    private static func discard(_ keys: [StoredKey], in area: any SecureArea) {
        for key in keys { try? area.deleteKey(key) }
    }

    /// A fresh `c_nonce` from the nonce endpoint (nil when the issuer has none).
    private mutating func cNonce(_ metadata: CredentialIssuerMetadata) async throws(CredentialIssuanceError) -> String?
    {
        guard let endpoint = metadata.nonceEndpoint else { return nil }
        let response = try await exchange(what: "getting a nonce") { () async throws(HTTPFetchError) in
            try await fetcher.send(endpoint, method: "POST", headers: [("Accept", "application/json")], body: nil)
        }
        noteDPoPNonce(response)
        guard response.status == 200 else {
            throw .unexpectedStatus(what: "the nonce endpoint", host: response.host, status: response.status)
        }
        do {
            return try NonceResponse(body: response.body).cNonce
        } catch {
            throw .protocolError(error)
        }
    }

    private func makeProofs(_ keys: [StoredKey], audience: String, nonce: String?) throws(CredentialIssuanceError)
        -> [String]
    {
        var proofs: [String] = []
        for key in keys {
            let deviceKey: SecureAreaKey
            do {
                deviceKey = try store.secureAreas.deviceKey(key)
            } catch {
                throw .secureArea(error)
            }
            guard let algorithm = JWSAlgorithm.forSigning(with: key.curve) else {
                throw .protocolError(.unsupported("a \(key.curve.rawValue) key cannot sign a JWT proof"))
            }
            do {
                proofs.append(
                    try KeyProof.make(
                        publicKey: deviceKey.publicKey, audience: audience, nonce: nonce, issuedAt: issuance.now(),
                        clientID: proofIssuer
                    ) { (input) throws(SecureAreaError) in
                        try deviceKey.signature(over: input, algorithm: algorithm.signatureAlgorithm)
                    })
            } catch {
                throw .protocolError(error)
            }
        }
        return proofs
    }

    // MARK: - Step 6: notifications

    /// Sends a notification when the issuer asked for them; returns whether it was delivered.
    private mutating func notify(
        _ source: IssuanceSource, token: TokenResponse, event: NotificationRequest.Event, description: String?
    ) async -> Bool {
        guard let id = source.notificationID, let endpoint = source.notificationEndpoint else { return false }
        let body = NotificationRequest(notificationID: id, event: event, eventDescription: description).body
        do {
            _ = try await send(
                endpoint, what: "the notification", endpoint: "notification endpoint", contentType: "application/json",
                body: body, token: token)
            events(.notified(event: event.rawValue))
            return true
        } catch {
            warnings.append("the issuer could not be notified (\(event.rawValue)): \(error)")
            return false
        }
    }

    // MARK: - HTTP

    private func get(_ url: String, what: String) async throws(CredentialIssuanceError) -> HTTPResponse {
        let response = try await exchange(what: what) { () async throws(HTTPFetchError) in
            try await fetcher.get(url, accept: "application/json")
        }
        guard response.status == 200 else {
            throw .unexpectedStatus(what: what, host: response.host, status: response.status)
        }
        return response
    }

    private func exchange(what: String, _ body: () async throws(HTTPFetchError) -> HTTPResponse)
        async throws(CredentialIssuanceError) -> HTTPResponse
    {
        do {
            return try await body()
        } catch {
            throw .exchange(what: what, error)
        }
    }

    /// POSTs `body` with the access token (when given) and a DPoP proof (when DPoP is on);
    /// answers a `use_dpop_nonce` challenge once with the server's nonce. A non-2xx answer
    /// becomes the issuer's OAuth error, or an unexpected status.
    private mutating func send(
        _ url: String, what: String, endpoint: String, contentType: String, body: [UInt8], token: TokenResponse?
    ) async throws(CredentialIssuanceError) -> HTTPResponse {
        let host = (try? HTTPFetcher.checkedHost(url)) ?? url
        for attempt in 0..<2 {
            var headers = [("Content-Type", contentType), ("Accept", "application/json")]
            if let token { headers.append(("Authorization", token.authorization)) }
            if let dpop {
                do {
                    headers.append(
                        (
                            "DPoP",
                            try dpop.proof(
                                method: "POST", url: url, issuedAt: issuance.now(),
                                accessToken: token?.isDPoP == true ? token?.accessToken : nil, nonce: dpopNonces[host])
                        ))
                } catch {
                    throw .protocolError(error)
                }
            }
            let response = try await exchange(what: what) { () async throws(HTTPFetchError) in
                try await fetcher.send(url, method: "POST", headers: headers, body: body)
            }
            let challenged = noteDPoPNonce(response)
            if response.isSuccess { return response }
            let error = OAuthErrorResponse(body: response.body)
            let nonceChallenge =
                (error?.isUseDPoPNonce ?? false)
                || (response.status == 401 && (response.headers["www-authenticate"] ?? "").contains("use_dpop_nonce"))
            if dpop != nil, nonceChallenge, challenged, attempt == 0 { continue }
            if let error { throw .protocolError(.issuer(endpoint: endpoint, error)) }
            if let header = response.headers["www-authenticate"], let code = Self.wwwAuthenticateError(header) {
                throw .protocolError(.issuer(endpoint: endpoint, OAuthErrorResponse(error: code)))
            }
            throw .unexpectedStatus(what: what, host: response.host, status: response.status)
        }
        throw .protocolError(.invalidResponse(endpoint: endpoint, "the DPoP nonce was refused twice"))
    }

    /// Keeps a `DPoP-Nonce` the server sent; returns whether one came.
    @discardableResult
    private mutating func noteDPoPNonce(_ response: HTTPResponse) -> Bool {
        guard let nonce = response.headers["dpop-nonce"], !nonce.isEmpty else { return false }
        dpopNonces[response.host] = nonce
        return true
    }

    /// `error="..."` of a `WWW-Authenticate` header (RFC 6750 section 3).
    private static func wwwAuthenticateError(_ header: String) -> String? {
        guard let range = header.range(of: "error=\"") else { return nil }
        let rest = header[range.upperBound...]
        guard let end = rest.firstIndex(of: "\"") else { return nil }
        return OAuthErrorResponseText.printable(String(rest[..<end]))
    }
}

/// Printable, bounded text from a header.
private enum OAuthErrorResponseText {
    static func printable(_ text: String) -> String {
        OAuthErrorResponse(
            error: String(
                text.prefix(64).unicodeScalars.filter { $0.value >= 0x20 && $0.value < 0x7F }.map(Character.init))
        ).error
    }
}

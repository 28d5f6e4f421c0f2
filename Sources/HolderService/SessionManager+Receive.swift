import FoundationEssentials
import HolderRuntime
import OnlineFlows
import OnlineTransport
import Wallet

/// What ReceiveCredential and ResumePending answer: the credentials stored (one id per
/// credential, all its copies), the deferred issuances kept pending in the store, and the
/// pending issuances that ended without a credential (what happened to each).
struct ReceivedCredentials: Sendable, Equatable {
    var credentialIDs: [String]
    var pendingIDs: [String]
    var failures: [String] = []
}

extension SessionManager {
    /// The longest offer taken: an offer by value with its claims fits many times over.
    static let offerLimit = 65536

    /// One issuance run by the holder for session `id`, its events reported through `events`.
    typealias Issuance =
        @Sendable (
            _ id: UInt64, _ prompt: SignalingConsentPrompt, _ environment: ServiceEnvironment,
            _ events: @escaping @Sendable (CredentialIssuance.Event) -> Void
        ) async throws(CredentialIssuanceError) -> ReceiveOutcome

    /// Receives the credentials of an OpenID4VCI offer (ReceiveCredential) as an online
    /// session: consent from the service's front-end (RequestReceived is raised), the
    /// transaction code from the agent, the authorization URL (an offer without a
    /// pre-authorized code) opened by the agent, CredentialReceived per stored credential,
    /// then Ended. Returns when the issuance is over: stored, kept pending, declined or failed.
    func receive(offer: String, options: ReceiveOptions) async throws(HolderServiceError) -> ReceivedCredentials {
        try checkReceiving()
        guard offer.utf8.count <= Self.offerLimit else {
            throw .invalidArguments(
                "the offer is \(offer.utf8.count) bytes long, more than \(Self.offerLimit): give the offer the issuer's QR code or link carries"
            )
        }
        return try await issuanceSession("receiving credentials") {
            (id, prompt, environment, events) throws(CredentialIssuanceError) in
            try await environment.holder.receive(
                offer: offer, options: options, consent: prompt,
                transactionCode: environment.transactionCodeSource(session: id), events: events,
                log: environment.sessionLog(id))
        }
    }

    /// Resumes the store's pending deferred issuances (ResumePending) as an online session, as
    /// `credentials receive --pending` does: nobody is asked (consent was given when each offer
    /// was accepted); CredentialReceived per stored credential, then Ended.
    func resumePending(options: ReceiveOptions) async throws(HolderServiceError) -> ReceivedCredentials {
        try checkReceiving()
        return try await issuanceSession("resuming pending issuances") {
            (_, _, environment, events) throws(CredentialIssuanceError) in
            try await environment.holder.resumePending(options: options, events: events)
        }
    }

    /// Receiving needs `--online` and issuer trust anchors.
    private func checkReceiving() throws(HolderServiceError) {
        let configuration = environment.configuration
        guard configuration.online else {
            throw .notSupported(
                "receiving credentials is off: run serve with --online (systemd: link the online.conf drop-in)")
        }
        guard !configuration.settings.issuerTrust.isEmpty else {
            throw .notSupported(
                "the service has no issuer trust anchors: run serve with --trust-anchor IACA.pem (the certificates received credentials must chain to)"
            )
        }
    }

    /// Runs `issuance` as a new online session; returns its result once it is over.
    private func issuanceSession(_ what: String, _ issuance: @escaping Issuance) async throws(HolderServiceError)
        -> ReceivedCredentials
    {
        let (id, prompt) = try newOnlineSession()
        let environment = environment
        let (results, continuation) = AsyncStream<Result<ReceivedCredentials, HolderServiceError>>.makeStream()
        let refuse: @Sendable (String) async -> Void = { why in await self.refuseAuthorization(id, why) }
        online[id] = Task {
            var (result, reason) = await Self.runIssuance(
                id, prompt: prompt, environment: environment, refuse: refuse, issuance)
            if let why = self.authorizationRefusals.removeValue(forKey: id) {
                (result, reason) = (.failure(.declined("the authorization URL was not opened: \(why)")), "declined")
            }
            self.ended(id, adapter: nil, reason: reason)
            continuation.yield(result)
            continuation.finish()
        }
        log.info("session \(id): \(what)")
        for await result in results { return try result.get() }
        throw .failed("session \(id) ended without a result")
    }

    /// The agent did not open the authorization URL: the session ends (the redirect would
    /// never come) and says why.
    private func refuseAuthorization(_ id: UInt64, _ why: String) {
        guard let task = online[id] else { return }
        log.notice("session \(id): \(why)")
        authorizationRefusals[id] = why
        task.cancel()
    }

    /// One issuance; its result for the caller and the reason its Ended carries. Off the actor
    /// (`@concurrent`), so reading an offer and its metadata never holds up other calls.
    @concurrent private static func runIssuance(
        _ id: UInt64, prompt: SignalingConsentPrompt, environment: ServiceEnvironment,
        refuse: @escaping @Sendable (String) async -> Void, _ issuance: Issuance
    ) async -> (Result<ReceivedCredentials, HolderServiceError>, String) {
        let (configuration, log) = (environment.configuration, environment.log)
        let events = IssuanceEvents(
            session: id, log: log, signals: environment.signals,
            open: environment.authorizationOpener(session: id), refuse: refuse)
        do {
            let received = try await issuance(id, prompt, environment, events.report)
            let (outcome, reason) = (received.outcome, received.classification.reason)
            switch outcome.result {
            case .declined:
                return (.failure(.declined(declined(outcome.issuerName, configuration.consent))), reason)
            case .received(let ids):
                return (
                    .success(
                        ReceivedCredentials(credentialIDs: ids, pendingIDs: outcome.pending, failures: outcome.failures)
                    ),
                    reason
                )
            }
        } catch {
            if Task.isCancelled {
                return (
                    .failure(
                        .failed(
                            "session \(id) was cancelled before the issuance ended: ListCredentials shows what was stored"
                        )
                    ), SessionEndReason.cancelled
                )
            }
            log.notice("session \(id): receiving failed: \(error)")
            return (.failure(HolderServiceError(issuance: error)), SessionClassification.error("\(error)"))
        }
    }

    /// The Declined message: who declined, that nothing was requested.
    private static func declined(_ issuerName: String, _ consent: ServiceConsent) -> String {
        let who: String
        switch consent {
        case .agent:
            who =
                "the consent agent declined it (or none is registered, or it did not answer in time)"
        case .policy(_, let path):
            who = "no issuer rule of the policy file \(path) accepts it (docs/receiving-credentials.md)"
        }
        return
            "the offer of \(CallerText.bounded(issuerName)) was not accepted: \(who); nothing was requested from the issuer"
    }
}

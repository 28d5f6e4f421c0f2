import Foundation
import HolderRuntime
import OnlineFlows
import OnlineTransport
import Wallet

/// What ReceiveCredential answers: the credentials stored (one id per credential, all its
/// copies) and the deferred issuances kept pending in the store.
struct ReceivedCredentials: Sendable, Equatable {
    var credentialIDs: [String]
    var pendingIDs: [String]
}

extension SessionManager {
    /// The longest offer taken: an offer by value with its claims fits many times over.
    static let offerLimit = 65536

    /// Receives the credentials of an OpenID4VCI offer (ReceiveCredential) as an online
    /// session: consent from the service's front-end (RequestReceived is raised), the
    /// transaction code from the agent, CredentialReceived per stored credential, then Ended.
    /// Returns when the issuance is over: stored, kept pending, declined or failed.
    func receive(offer: String, options: ReceiveOptions) async throws(HolderServiceError) -> ReceivedCredentials {
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
        guard offer.utf8.count <= Self.offerLimit else {
            throw .invalidArguments(
                "the offer is \(offer.utf8.count) bytes long, more than \(Self.offerLimit): give the offer the issuer's QR code or link carries"
            )
        }
        let (id, prompt) = try newOnlineSession()
        let environment = environment
        let (results, continuation) = AsyncStream<Result<ReceivedCredentials, HolderServiceError>>.makeStream()
        online[id] = Task {
            let (result, reason) = await Self.runIssuance(
                id, offer: offer, options: options, prompt: prompt, environment: environment)
            self.ended(id, adapter: nil, reason: reason)
            continuation.yield(result)
            continuation.finish()
        }
        log.info("session \(id): receiving credentials")
        for await result in results { return try result.get() }
        throw .failed("session \(id) ended without a result")
    }

    /// One issuance; its result for the caller and the reason its Ended carries. Off the actor
    /// (`@concurrent`), so reading an offer and its metadata never holds up other calls.
    @concurrent private static func runIssuance(
        _ id: UInt64, offer: String, options: ReceiveOptions, prompt: SignalingConsentPrompt,
        environment: ServiceEnvironment
    ) async -> (Result<ReceivedCredentials, HolderServiceError>, String) {
        let (configuration, log, signals) = (environment.configuration, environment.log, environment.signals)
        do {
            let received = try await environment.holder.receive(
                offer: offer, options: options, consent: prompt,
                transactionCode: environment.transactionCodeSource(session: id),
                events: { event in report(event, session: id, log: log, signals: signals) },
                log: environment.sessionLog(id))
            let (outcome, reason) = (received.outcome, received.classification.reason)
            switch outcome.result {
            case .declined:
                return (.failure(.declined(declined(outcome.issuerName, configuration.consent))), reason)
            case .received(let ids):
                return (.success(ReceivedCredentials(credentialIDs: ids, pendingIDs: outcome.pending)), reason)
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

    /// The flow's progress in the log (hosts, doc types, ids; never a code, token or value),
    /// and CredentialReceived for each stored credential.
    private static func report(
        _ event: CredentialIssuance.Event, session id: UInt64, log: ServiceLog, signals: HolderSignals
    ) {
        switch event {
        case .fetchingOffer(let host):
            log.info("session \(id): fetching the offer from \(host)")
        case .issuer(let name, let host):
            log.info("session \(id): issuer \(name) (\(host))")
        case .openAuthorization:
            // Not reached: the service refuses offers that need a browser before consent.
            log.warning("session \(id): the issuer asks for a browser authorization, which the service cannot show")
        case .requestingToken(let host, let dpop):
            log.info("session \(id): requesting an access token from \(host)\(dpop ? " (DPoP)" : "")")
        case .requestingCredential(let docType, let copies):
            log.info("session \(id): requesting \(docType) (\(copies) \(copies == 1 ? "copy" : "copies"))")
        case .stored(let credentialID, let docType, let copies):
            log.info(
                "session \(id): stored \(docType) as credential \(credentialID) (\(copies) \(copies == 1 ? "copy" : "copies"))"
            )
            signals.credentialReceived(id, credentialID: credentialID, docType: docType, copies: copies)
        case .deferred(let docType, let interval):
            log.info("session \(id): the issuer deferred \(docType); asking again every \(interval) s")
        case .keptPending(let pendingID, let docType):
            log.info("session \(id): \(docType) is not ready: kept pending as \(pendingID)")
        case .notified(let event):
            log.info("session \(id): the issuer was notified: \(event)")
        }
    }
}

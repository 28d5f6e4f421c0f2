import Consent
import FoundationEssentials
import OnlineFlows
import OnlineTransport
import PrintableText

extension Holder {
    /// Receives the credentials of one OpenID4VCI offer into the store, after consent from
    /// `consent`; the flow checks each as an import and writes the history. Logs the
    /// description and the flow's warnings and failures.
    public func receive(
        offer: String, options: ReceiveOptions = ReceiveOptions(), consent: any ConsentPrompt,
        transactionCode: @escaping CredentialIssuance.TransactionCodeSource,
        events: @escaping @Sendable (CredentialIssuance.Event) -> Void = { _ in }, log sessionLog: HolderLog? = nil
    ) async throws(CredentialIssuanceError) -> ReceiveOutcome {
        let outcome = ReceiveOutcome(
            try await issuance(options).run(
                offer: offer.trimmingWhitespace(), store: store, consent: consent,
                transactionCode: transactionCode, events: events))
        report(outcome, to: sessionLog ?? log)
        return outcome
    }

    /// Resumes the store's pending deferred issuances (consent was given when their offers
    /// were accepted).
    public func resumePending(
        options: ReceiveOptions = ReceiveOptions(),
        events: @escaping @Sendable (CredentialIssuance.Event) -> Void = { _ in }
    ) async throws(CredentialIssuanceError) -> ReceiveOutcome {
        let outcome = ReceiveOutcome(try await issuance(options).resumePending(store: store, events: events))
        report(outcome, to: log)
        return outcome
    }

    private func issuance(_ options: ReceiveOptions) -> CredentialIssuance {
        var issuance = CredentialIssuance(
            trustAnchors: settings.issuerTrust, tlsCAs: settings.tlsCAs, secureArea: options.secureArea,
            batch: options.batch, limits: settings.httpLimits, redirectURI: settings.redirectURI,
            wait: .seconds(options.wait), authorizationCodeFlow: settings.authorizationCodeFlow)
        issuance.scopedAnchors = settings.issuerScopedAnchors
        return issuance
    }

    private func report(_ outcome: ReceiveOutcome, to log: HolderLog) {
        for warning in outcome.outcome.warnings { log(HolderLogLine(.warning, warning)) }
        for failure in outcome.outcome.failures { log(HolderLogLine(.warning, failure)) }
        log(HolderLogLine(.info, outcome.description))
    }
}

import Consent
import FoundationEssentials
import OnlineFlows
import OnlineTransport
import PrintableText

extension Holder {
    /// Answers one OpenID4VP request (`url`, as a verifier's QR code or link carries it) from
    /// the store, after consent from `consent`; the flow writes the history. Logs the
    /// description and the flow's warnings.
    /// - Throws: when the request cannot be fetched, the response cannot be delivered, or the
    ///   store cannot be read.
    public func presentOnline(
        url: String, consent: any ConsentPrompt,
        events: @escaping @Sendable (OnlinePresentation.Event) -> Void = { _ in }, log sessionLog: HolderLog? = nil
    ) async throws(OnlinePresentationError) -> OnlinePresentationOutcome {
        let log = sessionLog ?? self.log
        // The flow reads the store with the same rule; the selection names what it leaves out
        // (a store that cannot be read fails in the flow, with the flow's error).
        let selection = (try? selectCredentials(log: log)) ?? CredentialSelection(credentials: [], withheld: [])
        let consent = selection.withheld.isEmpty ? consent : StatusNoticeConsent(inner: consent, selection: selection)
        let flow = OnlinePresentation(
            verifierTrust: settings.verifierTrust, tlsCAs: settings.tlsCAs, limits: settings.httpLimits)
        let outcome = OnlinePresentationOutcome(
            try await flow.run(
                url: url.trimmingWhitespace(), store: store, consent: consent,
                events: events))
        log(HolderLogLine(.info, outcome.description))
        for warning in outcome.outcome.warnings { log(HolderLogLine(.warning, warning)) }
        return outcome
    }
}

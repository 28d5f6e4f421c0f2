import BLETransport
import Consent
import ISO18013
import Presentation
import Proximity

extension Holder {
    /// The first step of a proximity presentation: the credentials valid now and not withheld
    /// for their status (``Holder/selectCredentials(log:)``; a damaged row is logged once). Lines of the session go to `sessionLog` (the holder's log when nil).
    /// - Throws: ``HolderRuntimeError/noCredential`` or ``HolderRuntimeError/store(_:)``.
    public func prepareProximity(log sessionLog: HolderLog? = nil) throws(HolderRuntimeError)
        -> ProximityPresentation
    {
        let log = sessionLog ?? self.log
        var selection = try selectCredentials(log: log)
        selection.withheld.removeAll { $0.format != "mso_mdoc" }
        // A withheld mdoc still answers a reader (nothing, and the history says why).
        guard !selection.credentials.isEmpty || !selection.withheld.isEmpty else { throw .noCredential }
        return ProximityPresentation(holder: self, selection: selection, log: log)
    }

    /// One proximity presentation, both steps (``prepareProximity(log:)``, then
    /// ``ProximityPresentation/run(over:modes:consent:showEngagement:progress:observer:)``).
    public func presentProximity(
        over links: ProximityLinks, modes: ProximityModeOption? = nil, consent: any ConsentPrompt,
        showEngagement: @Sendable (DeviceEngagement) -> Void = { _ in },
        progress: @escaping @Sendable (TransferProgress) -> Void = { _ in },
        observer: @escaping @Sendable (ProximitySessionEvent) -> Void = { _ in }, log sessionLog: HolderLog? = nil
    ) async throws(HolderRuntimeError) -> ProximityOutcome {
        try await prepareProximity(log: sessionLog).run(
            over: links, modes: modes, consent: consent, showEngagement: showEngagement, progress: progress,
            observer: observer)
    }
}

/// A proximity presentation with its credentials chosen, ready to run one session.
public struct ProximityPresentation: Sendable {
    let holder: Holder
    /// The credentials to present, and those withheld for their status.
    let selection: CredentialSelection
    let log: HolderLog

    /// Runs the session: a fresh engagement in `modes` (the settings' when nil) over
    /// `links`, consent from `consent`, then the history and a line describing the session.
    /// - Throws: ``HolderRuntimeError/proximity(_:)`` when the GATT service, the scan or the
    ///   key could not start, ``HolderRuntimeError/cancelled`` when cancelled before that.
    public func run(
        over links: ProximityLinks, modes: ProximityModeOption? = nil, consent: any ConsentPrompt,
        showEngagement: @Sendable (DeviceEngagement) -> Void = { _ in },
        progress: @escaping @Sendable (TransferProgress) -> Void = { _ in },
        observer: @escaping @Sendable (ProximitySessionEvent) -> Void = { _ in }
    ) async throws(HolderRuntimeError) -> ProximityOutcome {
        let settings = holder.settings
        let options = modes.map { settings.proximity.with(modes: $0) } ?? settings.proximity
        let engine = options.holder(
            server: links.server, client: links.client, l2capListener: links.l2capListener,
            credentials: selection.credentials, configuration: settings.engineConfiguration,
            consent: selection.withheld.isEmpty ? consent : StatusNoticeConsent(inner: consent, selection: selection))
        var result: ProximitySessionResult
        do {
            result = try await engine.runSession(showEngagement: showEngagement, progress: progress, observer: observer)
        } catch is CancellationError {
            throw .cancelled
        } catch {
            throw .proximity("\(error)")
        }
        result.records = selection.explaining(result.records)
        let outcome = ProximityOutcome(result, historyProblem: holder.record(result.records, channel: .ble, log: log))
        log(HolderLogLine(.info, outcome.description))
        return outcome
    }
}

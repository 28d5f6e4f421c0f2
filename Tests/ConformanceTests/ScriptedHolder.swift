import BLETestSupport
import BLETransport
import Conformance
import Consent
import Foundation
import ISO18013
import Presentation
import Proximity
import ProximityReader
import Synchronization

/// The holder a run is tested against: for each case the real holder loop
/// (``ProximityHolder``) on a fresh in-memory wire, optionally with a ``HolderFault``;
/// its consent approves everything, readers that are not trusted are refused (unless the
/// fault releases to them).
final class ScriptedHolder: Sendable {
    enum Mode: String, CaseIterable, Sendable { case peripheral, central }

    struct ApproveAll: ConsentPrompt {
        func decide(_ request: ConsentRequest) async -> ConsentDecision { .approveAll(request) }
    }

    let setup: TestMDL
    let mode: Mode
    let fault: HolderFault?
    let engagementVersion: EngagementVersion
    let wire = SwitchableWire(mtu: 185)
    private let running = Mutex<Task<Void, Never>?>(nil)

    init(mode: Mode, fault: HolderFault? = nil, engagementVersion: EngagementVersion = .secondEdition) throws {
        setup = try TestMDL()
        self.mode = mode
        self.fault = fault
        self.engagementVersion = engagementVersion
    }

    /// The reader's settings: our reader certificate (trusted by the holder) and the IACA.
    var settings: ConformanceSettings {
        var settings = ConformanceSettings()
        settings.identity = ReaderIdentity(key: setup.pki.readerKey, chain: [setup.pki.reader])
        settings.trustAnchors = [setup.pki.iaca]
        settings.mode = mode == .peripheral ? .peripheral : .central
        settings.answerTimeout = .seconds(6)
        settings.endGrace = .milliseconds(800)
        return settings
    }

    /// A runner whose engagements come from this holder.
    func runner() -> ConformanceRunner {
        let reader = ProximityReader(client: wire.client, server: wire.server, timeout: .seconds(6))
        var runner = ConformanceRunner(settings: settings, reader: reader) { _ in try await self.engage() }
        runner.caseTimeout = .seconds(30)
        return runner
    }

    /// Ends the previous case's holder, starts a new one and returns its engagement URI.
    func engage() async throws -> String {
        running.withLock { $0?.cancel() }
        let wire = wire.renew(mtu: 185)
        let server = FaultyGattServer(wire.server, fault: fault)
        var holder = ProximityHolder(
            server: mode == .peripheral ? server : nil, centralClient: mode == .central ? wire.client : nil,
            credentials: [setup.credential],
            configuration: HolderFault.configuration(fault, readerCA: [setup.pki.readerCA]),
            consent: ApproveAll())
        holder.tickInterval = .milliseconds(50)
        holder.engagementVersion = engagementVersion
        let uri = Mutex<String?>(nil)
        let fault = fault
        let show: @Sendable (DeviceEngagement) -> Void = { e in uri.withLock { $0 = HolderFault.shownURI(e, fault) } }
        let task = Task { _ = try? await holder.runSession(showEngagement: show) }
        running.withLock { $0 = task }
        for _ in 0..<500 {
            if let shown = uri.withLock({ $0 }) { return shown }
            try await Task.sleep(for: .milliseconds(10))
        }
        throw CancellationError()
    }

    func stop() { running.withLock { $0?.cancel() } }
}

import BLETestSupport
import DBus
import Foundation
import HolderRuntime
import Presentation
import Proximity
import TestSupport
import Testing
import Wallet

@testable import HolderService

/// The command line (`mdoc-holder present`) and the D-Bus service (StartProximity) run the
/// same holder: for the same session they give the same classification (exit status and
/// Ended reason are renderings of it), the same description, the same history entries read
/// back from the store, and the same log lines.
struct AdapterParityTests {
    /// What one adapter made of one session.
    struct Run: Equatable {
        var classification: SessionClassification
        var description: String
        /// The history read back from the store, the times left out.
        var history: [HistoryEntry]
        /// The holder's log lines, without the adapter's prefix.
        var lines: [String]
    }

    /// The reader of Fixtures/pki is trusted (its root is the reader trust anchor).
    static var settings: HolderSettings {
        get throws { HolderSettings(readerTrust: try ParityScenario.certificates("pki/reader-ca.pem")) }
    }

    /// `mdoc-holder present --once`: the holder the command builds, its log on standard error.
    static func commandLine(_ scenario: ParityScenario, store file: String) async throws -> (Run, Int32) {
        let store = try ParityScenario.copy(file, as: "cli.sqlite")
        let lines = Lines()
        let holder = Holder(settings: try settings, store: store) { lines.append($0.consoleText) }
        let wire = InMemoryGattWire()
        let engagement = EngagementBox()
        async let outcome = holder.presentProximity(
            over: ProximityLinks(server: wire.server, client: wire.client), consent: try scenario.policy,
            showEngagement: { engagement.set($0.uri) })
        try await scenario.read(over: wire, engagementURI: try await engagement.wait())
        let result = try await outcome
        let run = Run(
            classification: result.classification, description: result.description,
            history: try history(store),
            lines: lines.all.map { line in
                for prefix in ["mdoc-holder: ", "session: "] where line.hasPrefix(prefix) {
                    return String(line.dropFirst(prefix.count))
                }
                return line
            })
        return (run, result.classification.presentExitStatus)
    }

    /// `serve` with a policy file: StartProximity's session, its log and its Ended reason.
    static func service(_ scenario: ParityScenario, store file: String) async throws -> (Run, String) {
        try await PrivateBus.with { bus in
            let store = try ParityScenario.copy(file, as: "service.sqlite")
            let lines = Lines()
            let log = ServiceLog(journal: false) { lines.append($0) }
            let configuration = ServiceConfiguration(
                storePath: store.path, busAddress: bus.address,
                consent: .policy(try scenario.policy, path: "/policy.toml"), settings: try settings)
            let connection = try await DBusConnection.connect(address: bus.address)
            let environment = ServiceEnvironment(
                connection: connection, store: store, configuration: configuration,
                holder: Holder(settings: configuration.holderSettings, store: store) { log.holderLine($0) },
                agents: AgentRegistry(connection: connection, log: log), signals: HolderSignals(connection: connection),
                log: log)
            let sessions = SessionManager(environment: environment)
            let wire = InMemoryGattWire()
            let (id, uri) = try await sessions.startProximity(
                adapter: "hci0", mode: .peripheral, over: ProximityLinks(server: wire.server, client: wire.client))
            try await scenario.read(over: wire, engagementURI: uri)
            await sessions.waitUntilEnded(id)
            await environment.signals.finish()
            await connection.close()
            let prefix = "mdoc-holder: session \(id): "
            let sessionLines = lines.all.compactMap { line -> String? in
                guard line.hasPrefix(prefix) else { return nil }
                return String(line.dropFirst(prefix.count).dropLast())
            }
            let ended = try #require(sessionLines.last { $0.hasPrefix("ended (") })
            let holderLines = sessionLines.filter {
                !["starting on", "engagement ready", "reader connected", "request from", "ended ("].contains(
                    where: $0.hasPrefix)
            }
            // Ended's reason, as the log gives it: "ended (REASON)".
            let reason = String(ended.dropFirst("ended (".count).dropLast())
            let run = Run(
                classification: try #require(Self.classification(reason)), description: holderLines.last ?? "",
                history: try history(store), lines: holderLines)
            return (run, reason)
        }
    }

    static func classification(_ reason: String) -> SessionClassification? {
        [.completed, .declined, .timeout, .readerEnded, .disconnected, .pending].first { $0.reason == reason }
    }

    static func history(_ store: CredentialStore) throws -> [HistoryEntry] {
        try store.history().map { entry in
            var entry = entry
            entry.time = Date(timeIntervalSince1970: 0)
            return entry
        }
    }

    @Test(arguments: ParityScenario.allCases)
    func bothAdaptersGiveTheSameOutcomeHistoryAndLog(_ scenario: ParityScenario) async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent(
            "parity-\(UUID().uuidString.prefix(8))")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let file = try scenario.makeStoreFile(in: directory)

        let (cli, exitStatus) = try await Self.commandLine(scenario, store: file)
        let (service, reason) = try await Self.service(scenario, store: file)

        #expect(service.classification == cli.classification)
        #expect(reason == cli.classification.reason)
        #expect(service.history == cli.history)
        #expect(service.lines == cli.lines)
        #expect(service.description == cli.description)
        // The description is the session's log line in both.
        #expect(cli.lines.last == cli.description)

        switch scenario {
        case .released, .damagedRow:
            #expect(cli.classification == .completed && exitStatus == 0)
            #expect(cli.history.map(\.decision) == [.sent])
            #expect(cli.history.first?.authentication.hasPrefix("trusted") == true)
            #expect(cli.description.hasPrefix("sent \(ParityScenario.mDL) ["))
        case .declined:
            #expect(cli.classification == .declined && exitStatus == 2)
            #expect(cli.history.map(\.decision) == [.declined])
        case .noMatchingCredential:
            #expect(cli.classification == .declined && exitStatus == 2)
            #expect(cli.history.count == 1 && cli.history.first?.decision != .sent)
        }
        let damaged = cli.lines.filter { $0.hasPrefix("not presented: credential \(ParityScenario.damagedID)") }
        #expect(damaged.count == (scenario == .damagedRow ? 1 : 0))
    }
}

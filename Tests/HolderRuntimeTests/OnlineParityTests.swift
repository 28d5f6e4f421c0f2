import DBus
import Foundation
import HolderRuntime
import TestSupport
import Testing
import Wallet

@testable import HolderService

/// `mdoc-holder present-online URL` and PresentOnline(URL) run the same holder: a request
/// refused before any network exchange (its origin unproven, so not reported) gives the same
/// classification, description, log lines and history through both.
struct OnlineParityTests {
    /// An OpenID4VP request without response_type, nonce or query: refused as invalid_request.
    static let url = "openid4vp://?client_id=redirect_uri%3Ahttps%3A%2F%2Fverifier.example%2Fcb"

    @Test func aRefusedRequestIsTheSameThroughBothAdapters() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent(
            "online-parity-\(UUID().uuidString.prefix(8))")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let file = try ParityScenario.released.makeStoreFile(in: directory)
        let policy = try ParityScenario.released.policy

        // The command line: the holder `present-online` builds, its lines on standard error.
        let cliStore = try ParityScenario.copy(file, as: "cli.sqlite")
        let cliLines = Lines()
        let cli = try await Holder(settings: HolderSettings(), store: cliStore) { cliLines.append($0.consoleText) }
            .presentOnline(url: Self.url, consent: policy)

        // The service: PresentOnline's session, its log and its Ended reason.
        let (reason, serviceLines, serviceHistory) = try await PrivateBus.with { bus in
            let store = try ParityScenario.copy(file, as: "service.sqlite")
            let lines = Lines()
            let log = ServiceLog(journal: false) { lines.append($0) }
            let configuration = ServiceConfiguration(
                storePath: store.path, busAddress: bus.address, consent: .policy(policy, path: "/policy.toml"),
                online: true)
            let connection = try await DBusConnection.connect(address: bus.address)
            let environment = ServiceEnvironment(
                connection: connection, store: store, configuration: configuration,
                holder: Holder(settings: configuration.holderSettings, store: store) { log.holderLine($0) },
                agents: AgentRegistry(connection: connection, log: log),
                signals: HolderSignals(connection: connection), log: log)
            let sessions = SessionManager(environment: environment)
            let id = try await sessions.startOnline(url: Self.url)
            await sessions.waitUntilEnded(id)
            await environment.signals.finish()
            await connection.close()
            let prefix = "mdoc-holder: session \(id): "
            let own = lines.all.compactMap {
                $0.hasPrefix(prefix) ? String($0.dropFirst(prefix.count).dropLast()) : nil
            }
            let ended = try #require(own.last { $0.hasPrefix("ended (") })
            let holderLines = own.filter { !$0.hasPrefix("ended (") && !$0.hasSuffix("started") }
            return (String(ended.dropFirst("ended (".count).dropLast()), holderLines, try store.history())
        }

        guard case .failed(let text) = cli.classification else {
            Issue.record("not refused: \(cli.classification)")
            return
        }
        #expect(text.hasPrefix("refused: "))
        #expect(reason == cli.classification.reason)
        #expect(cli.classification.onlineExitStatus == 1)
        #expect(cliLines.all.map { $0.replacingOccurrences(of: "session: ", with: "") } == serviceLines)
        #expect(serviceLines.last == cli.description)
        #expect(try cliStore.history() == serviceHistory)
    }
}

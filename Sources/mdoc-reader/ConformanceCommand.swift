import ArgumentParser
import BLEBlueZ
import BlueZ
import CommandLineSupport
import Conformance
import Foundation
import MdocCrypto
import Presentation
import PrintableText
import ProximityReader

/// `mdoc-reader conformance`: TS 18013-6 style holder test cases over BLE (the cases,
/// checks and reports live in the Conformance library; this wires the options).
struct ConformanceCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "conformance",
        abstract: "Run ISO/IEC TS 18013-6 style holder test cases against an mdoc over Bluetooth LE.",
        discussion: """
            Each case needs a fresh engagement: --uri-command runs a command before each case and takes \
            the first mdoc: URI it prints (MDOC_CONFORMANCE_CASE names the case); without it the tool \
            asks for the next URI on standard input (a URI argument answers the first case). Prints \
            one line per case, PASS|FAIL|SKIP <id> <reason> (failures with their evidence), then \
            `conformance: N passed, N failed, N skipped`. Exits 0 when no case failed, 1 when one \
            did, 2 on bad input. The cases are listed in docs/conformance.md.
            """)

    @Argument(help: "The engagement (mdoc: URI) for the first case.")
    var uri: String?

    @Option(name: .customLong("uri-command"), help: "A command that prints a fresh mdoc: URI; run before each case.")
    var uriCommand: String?

    @Option(help: "The Bluetooth adapter to use.")
    var adapter = "hci0"

    @Option(help: ArgumentHelp("BLE mode.", valueName: "auto|peripheral|central"))
    var mode: ReaderBLEMode.Choice = .auto

    @Flag(help: "Use the holder's L2CAP channel when it offers one (BLE_L2CAP_01 runs only with it).")
    var l2cap = false

    @Option(name: .customLong("cases"), help: "Run the cases whose id matches (wildcards * and ?). Repeatable.")
    var cases: [String] = []

    @Option(name: .customLong("reader-key"), help: "A reader authentication key (PEM) the holder trusts.")
    var readerKey: String?

    @Option(name: .customLong("reader-cert"), help: "The reader certificate chain (PEM, leaf first) for --reader-key.")
    var readerCert: String?

    @Option(
        name: .customLong("trust-anchor"), help: "IACA certificate(s) (PEM) to verify released documents. Repeatable.")
    var trustAnchors: [String] = []

    @Option(help: "Write a JUnit XML report to this file.")
    var junit: String?

    @Flag(help: "Print the report as JSON on standard output (the case lines go to standard error).")
    var json = false

    @Option(help: "Seconds the holder may take to answer (consent included).")
    var timeout: Double = 30

    @Flag(name: .shortAndLong, help: "Report each Bluetooth step on standard error.")
    var verbose = false

    func run() async throws {
        let settings: ConformanceSettings
        let selected = ConformanceSuite.select(cases)
        do {
            settings = try makeSettings()
            guard !selected.isEmpty else {
                throw ReaderCLIError("no case matches --cases \(cases.joined(separator: " "))")
            }
        } catch {
            Output.warn("mdoc-reader: \(RemoteText.printable(String(describing: error), limit: 2000))")
            throw ExitCode(2)
        }
        let client: BlueZClient
        do {
            client = try await BlueZClient.connect(busAddress: nil)
        } catch {
            Output.warn("mdoc-reader: cannot connect to the system D-Bus: \(error)")
            throw ExitCode(2)
        }
        let runner = ConformanceRunner(
            settings: settings, reader: proximityReader(client, timeout: settings.answerTimeout),
            engagements: uriCommand.map(EngagementSources.command) ?? EngagementSources.interactive(first: uri))
        let json = json
        let results = await runner.run(selected) { result in
            let text = TextReport.lines(result).joined(separator: "\n")
            if json { Output.warn(text) } else { Output.line(text) }
        }
        try writeReports(results)
        if ConformanceSummary(results).failed > 0 { throw ExitCode(1) }
    }

    private func makeSettings() throws -> ConformanceSettings {
        guard timeout > 0, timeout.isFinite else { throw ReaderCLIError("--timeout must be a positive number") }
        var settings = ConformanceSettings()
        settings.mode = mode
        settings.l2cap = l2cap
        settings.answerTimeout = .milliseconds(Int64((timeout * 1000).rounded()))
        for path in trustAnchors { settings.trustAnchors += try InputFile.certificates(path) }
        switch (readerKey, readerCert) {
        case (nil, nil): break
        case (let keyPath?, let certPath?):
            let key = try PrivateKey(pem: InputFile.text(keyPath))
            let chain = try InputFile.certificates(certPath)
            guard try chain[0].publicKey == key.publicKey else {
                throw ReaderCLIError("the first certificate in \(certPath) is not for the key in \(keyPath)")
            }
            settings.identity = ReaderIdentity(key: key, chain: chain)
        default:
            throw ReaderCLIError("--reader-key and --reader-cert go together")
        }
        return settings
    }

    private func proximityReader(_ client: BlueZClient, timeout: Duration) -> ProximityReader {
        let verbose = verbose
        let log: @Sendable (String) -> Void = {
            if verbose { Output.warn("mdoc-reader: \(RemoteText.printable($0, limit: 2000))") }
        }
        let roles = BlueZRoles.reader(client: client, adapter: adapter, timeout: timeout, l2cap: l2cap, log: log)
        var reader = ProximityReader(client: roles.client, server: roles.server, timeout: timeout, log: log)
        reader.l2cap = l2cap
        reader.l2capListener = roles.l2capListener
        return reader
    }

    private func writeReports(_ results: [CaseResult]) throws {
        let summary = ConformanceSummary(results).line
        if json {
            Output.warn(summary)
            Output.line(try JSONReport.render(results))
        } else {
            Output.line(summary)
        }
        if let junit {
            try JUnitReport.render(results).write(toFile: junit, atomically: true, encoding: .utf8)
        }
    }
}

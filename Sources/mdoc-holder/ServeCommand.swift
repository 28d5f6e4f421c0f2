import ArgumentParser
import CommandLineSupport
import ConsentPolicy
import Dispatch
import FoundationEssentials
import HolderRuntime
import HolderService
import MdocCrypto
import OpenID4VP
import Presentation
import Proximity

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

/// `mdoc-holder serve`: the holder as a system service on D-Bus (org.mdocholder), for
/// handhelds with a consent agent and for headless kiosks.
struct ServeCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "serve",
        abstract: "Run as the org.mdocholder D-Bus service (handheld with a consent agent, or kiosk).",
        discussion: """
            Owns org.mdocholder on the system bus (DBUS_SYSTEM_BUS_ADDRESS when set) and exports \
            org.mdocholder.Holder1 and org.mdocholder.AgentManager1 at /org/mdocholder (dbus/*.xml). \
            Consent: with --consent agent (the default) the registered D-Bus agent is asked and everything is \
            declined when none is registered, when it does not answer within --agent-timeout, or when it leaves \
            the bus; with --consent policy:FILE the policy file decides alone and RegisterAgent is refused. \
            PresentOnline and ReceiveCredential need --online; ReceiveCredential also needs --trust-anchor (the \
            IACA certificates received credentials must chain to), and asks the agent for an offer's transaction code. \
            --kiosk keeps a proximity session armed on --adapter, publishing each fresh engagement with --qr \
            and --qr-tty. Logs go to standard error, with syslog priorities when run by systemd. Stops on \
            SIGTERM or SIGINT.
            """)

    @Option(
        help: ArgumentHelp(
            "Who answers requests: agent (the registered D-Bus consent agent) or policy:FILE (docs/kiosk-policy.md).",
            valueName: "agent|policy:FILE"))
    var consent: String = "agent"

    @Option(help: ArgumentHelp("Seconds the consent agent has to answer.", valueName: "seconds"))
    var agentTimeout: Double = 60

    @Option(help: "The adapter of StartProximity calls that name none, and the kiosk's adapter.")
    var adapter: String = "hci0"

    @OptionGroup var proximity: ProximityArguments

    @OptionGroup var readers: ReaderTrustOptions

    @Flag(
        help:
            "Allow PresentOnline (OpenID4VP) and ReceiveCredential (OpenID4VCI) over HTTPS. Off by default.")
    var online = false

    @Option(
        name: .customLong("trust-anchor"),
        help: ArgumentHelp(
            "IACA certificate (PEM or DER) credentials received with ReceiveCredential must chain to. Repeatable.",
            valueName: "pem"))
    var trustAnchors: [String] = []

    @OptionGroup var verifiers: OnlineTrustOptions

    @Option(
        name: .customLong("status-refresh"),
        help: ArgumentHelp(
            "Seconds between checks of the credentials' status lists (with --online and --trust-anchor); 0: only on RefreshStatus.",
            valueName: "seconds"))
    var statusRefresh: Double = 6 * 3600

    @Flag(help: "Kiosk mode: headless, a proximity session always armed on --adapter; needs --consent policy:FILE.")
    var kiosk = false

    @Option(
        help: ArgumentHelp(
            "Kiosk: write each engagement's QR code atomically to this PNG file. Repeatable.", valueName: "png:PATH"))
    var qr: [String] = []

    @Option(
        name: .customLong("qr-tty"),
        help: ArgumentHelp(
            "Kiosk: draw each engagement's QR code on this terminal. Repeatable.", valueName: "/dev/ttyN")
    )
    var qrTTYs: [String] = []

    @OptionGroup var store: StoreOptions

    func run() async throws {
        let log = ServiceLog()
        let report = { (error: any Error) in log.error("\(error)") }
        let configuration = try await WalletCLI.exitOnError(2, report: report) { try makeConfiguration() }
        let service = try await WalletCLI.exitOnError(1, report: report) {
            try await HolderService.start(configuration, log: log)
        }
        let stopRequested = await Self.waitForStop(or: service)
        await service.stop()
        if !stopRequested {
            log.error("the bus connection was lost")
            throw ExitCode(1)
        }
    }

    private func makeConfiguration() throws -> ServiceConfiguration {
        guard agentTimeout > 0, agentTimeout <= 3600 else {
            throw ValidationError("--agent-timeout must be between 0 and 3600 seconds")
        }
        let consentMode: ServiceConsent
        do {
            switch try ConsentChoice(parsing: consent, allowed: [.agent, .policy]) {
            case .policy(let path): consentMode = .policy(try PolicyConsent(path: path), path: path)
            case .agent, .tty: consentMode = .agent(timeout: .milliseconds(Int64(agentTimeout * 1000)))
            }
        } catch let error as CommandLineError {
            throw ValidationError(error.description)
        }
        var kioskConfiguration: KioskConfiguration?
        if kiosk {
            guard case .policy = consentMode else {
                throw ValidationError("--kiosk needs --consent policy:FILE: a kiosk has nobody to ask")
            }
            var pngs: [String] = []
            for output in qr {
                guard output.hasPrefix("png:"), output.count > 4 else {
                    throw ValidationError("--qr takes png:PATH")
                }
                pngs.append(String(output.dropFirst(4)))
            }
            kioskConfiguration = KioskConfiguration(qrPNGPaths: pngs, qrTTYs: qrTTYs)
        } else if !qr.isEmpty || !qrTTYs.isEmpty {
            throw ValidationError("--qr and --qr-tty are for --kiosk (StartProximity returns the engagement URI)")
        }
        var settings = try readers.settings(proximity: proximity.options)
        try verifiers.apply(to: &settings)
        settings.issuerTrust = try trustAnchors.flatMap { try WalletCLI.readCertificates($0) }
        var configuration = ServiceConfiguration(
            storePath: store.resolvedPath, consent: consentMode, settings: settings, defaultAdapter: adapter,
            online: online, kiosk: kioskConfiguration)
        configuration.secureAreas = try store.secureAreas.registry()
        configuration.statusRefreshInterval = try Self.statusRefreshInterval(statusRefresh)
        return configuration
    }

    /// `--status-refresh`: nil for 0 (no timer), else at least a minute.
    private static func statusRefreshInterval(_ seconds: Double) throws -> Duration? {
        guard seconds != 0 else { return nil }
        guard seconds >= 60, seconds <= 30 * 86400 else {
            throw ValidationError("--status-refresh must be 0 (off) or between 60 seconds and 30 days")
        }
        return .milliseconds(Int64(seconds * 1000))
    }

    /// True on SIGTERM or SIGINT, false when the service lost its bus first.
    private static func waitForStop(or service: HolderService) async -> Bool {
        signal(SIGTERM, SIG_IGN)
        signal(SIGINT, SIG_IGN)
        let (stops, continuation) = AsyncStream<Bool>.makeStream()
        let sources = [SIGTERM, SIGINT].map { number in
            let source = DispatchSource.makeSignalSource(signal: number, queue: .global())
            source.setEventHandler { continuation.yield(true) }
            source.resume()
            return source
        }
        let watcher = Task {
            await service.waitUntilDisconnected()
            continuation.yield(false)
        }
        var stopRequested = true
        for await value in stops {
            stopRequested = value
            break
        }
        watcher.cancel()
        for source in sources { source.cancel() }
        return stopRequested
    }
}

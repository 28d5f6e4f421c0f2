import ArgumentParser
import CommandLineSupport
import Consent
import Dispatch
import Foundation
import HolderService
import MdocCrypto
import OpenID4VP
import Presentation
import Proximity

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

    @Option(
        name: .customLong("reader-trust"),
        help: "Reader root certificate(s) (PEM or DER); readers chaining to one are trusted. Repeatable.")
    var readerTrust: [String] = []

    @Option(help: "What to do with an unauthenticated or untrusted reader: refuse, ask (with a warning) or allow.")
    var untrustedReaders: String = "ask"

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

    @Option(
        name: .customLong("verifier-trust"),
        help: "CA certificate (PEM or DER) for signed OpenID4VP requests (PresentOnline). Repeatable.")
    var verifierTrust: [String] = []

    @Option(
        name: .customLong("verifiers"),
        help: ArgumentHelp(
            "File of pre-registered verifiers for PresentOnline (docs/online-presentation.md).", valueName: "file"))
    var verifiersFile: String?

    @Option(
        name: .customLong("tls-ca"),
        help: "CA certificate (PEM or DER) trusted for HTTPS besides the system trust store. Repeatable.")
    var tlsCAs: [String] = []

    @Option(
        name: .customLong("http-timeout"),
        help: ArgumentHelp(
            "Deadline in seconds of each HTTPS exchange of PresentOnline and ReceiveCredential (connection, TLS, request and the whole answer; 1 to 3600, default 30).",
            valueName: "seconds"))
    var httpTimeout: Int?

    @Flag(help: "Kiosk mode: headless, a proximity session always armed on --adapter; needs --consent policy:FILE.")
    var kiosk = false

    @Option(
        name: .customLong("qr"),
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
        let configuration: ServiceConfiguration
        do {
            configuration = try makeConfiguration()
        } catch {
            log.error("\(error)")
            throw ExitCode(2)
        }
        let service: HolderService
        do {
            service = try await HolderService.start(configuration, log: log)
        } catch {
            log.error("\(error)")
            throw ExitCode(1)
        }
        let stopRequested = await Self.waitForStop(or: service)
        await service.stop()
        if !stopRequested {
            log.error("the bus connection was lost")
            throw ExitCode(1)
        }
    }

    private func makeConfiguration() throws -> ServiceConfiguration {
        guard let untrusted = UntrustedReaderPolicy(rawValue: untrustedReaders) else {
            throw ValidationError("--untrusted-readers must be refuse, ask or allow")
        }
        guard agentTimeout > 0, agentTimeout <= 3600 else {
            throw ValidationError("--agent-timeout must be between 0 and 3600 seconds")
        }
        if let httpTimeout, !(1...3600).contains(httpTimeout) {
            throw ValidationError("--http-timeout must be between 1 and 3600 seconds")
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
        let readerAnchors = try readerTrust.flatMap { try WalletCLI.readCertificates($0) }
        let verifierAnchors = try verifierTrust.flatMap { try WalletCLI.readCertificates($0) }
        let preRegistered = try verifiersFile.map { try PreRegisteredVerifierFile.load(path: $0) } ?? []
        let tls = try tlsCAs.flatMap { try WalletCLI.readCertificates($0) }
        let issuerAnchors = try trustAnchors.flatMap { try WalletCLI.readCertificates($0) }
        var configuration = ServiceConfiguration(
            storePath: store.resolvedPath, consent: consentMode,
            holder: HolderConfiguration(readerTrustAnchors: readerAnchors, untrustedReaders: untrusted),
            defaultAdapter: adapter, proximity: proximity.options, online: online,
            verifierTrust: VerifierTrustConfiguration(trustAnchors: verifierAnchors, preRegistered: preRegistered),
            tlsCAs: tls, issuerTrust: issuerAnchors, kiosk: kioskConfiguration)
        configuration.secureAreas = try store.secureAreas.registry()
        configuration.httpLimits = .deadline(seconds: httpTimeout)
        return configuration
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

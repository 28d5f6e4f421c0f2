import ArgumentParser
import BLEBlueZ
import BLETransport
import BlueZ
import CommandLineSupport
import Consent
import FoundationEssentials
import HolderRuntime
import ISO18013
import MdocCrypto
import Presentation
import Proximity
import QRCode
import Wallet

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

/// Presents over Bluetooth LE: a fresh engagement per session, shown as asked, the mdoc
/// GATT service on the adapter (peripheral-server mode), the reader's found and connected to
/// (central-client mode), or both, consent, history.
struct PresentCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "present",
        abstract: "Present credentials to a reader over Bluetooth LE (ISO/IEC 18013-5).",
        discussion: """
            Serves readers one session at a time until stopped, or exactly one with --once. Exit status with \
            --once: 0 when a response with at least one element went out, 2 when a response went out but released \
            nothing (declined, untrusted reader, no matching credential), 1 on failure (no response delivered, \
            timeout, error). The bus is the system bus, or DBUS_SYSTEM_BUS_ADDRESS when set.
            """)

    @Option(help: "The Bluetooth adapter.")
    var adapter: String = "hci0"

    @OptionGroup var proximity: ProximityArguments

    @Option(
        help: ArgumentHelp(
            "How to show each engagement (repeatable): terminal, png:PATH (written atomically), uri (the mdoc: URI alone on standard output).",
            valueName: "terminal|png:PATH|uri"))
    var qr: [EngagementCommand.QROutput] = []

    @OptionGroup var consentOptions: ConsentOptions

    @OptionGroup var trust: ReaderTrustOptions

    @Flag(help: "Serve exactly one reader, then exit.")
    var once = false

    @OptionGroup var store: StoreOptions

    func run() async throws {
        // On another core while the policy, the store and its key-encryption key are read: the
        // connection to BlueZ. Its errors come after the store's, as when it ran after it; a
        // store error cancels and awaits it (async let).
        let (adapter, l2cap) = (adapter, proximity.options.l2cap)
        async let bluetooth = PresentStart.bluetooth(
            adapter: adapter, l2cap: l2cap, log: { WalletCLI.warn("mdoc-holder: \($0)") })
        // The consent terminal, when there is one: once it has gone away (hung up), the session
        // under way ends declined and nothing is waited for after it.
        let (prompt, terminal) = try consentOptions.prompt()
        let settings = try trust.settings(proximity: proximity.options)
        let wallet = try store.open()
        // A store without its key-encryption key (or TPM) refuses here, saying which and how.
        try wallet.checkKeysUsable()
        let holder = Holder(settings: settings, store: wallet, log: WalletCLI.holderLog)
        let outputs = qr.isEmpty ? [EngagementCommand.QROutput.terminal] : qr
        let uriOnStdout = outputs.contains { if case .uri = $0 { return true } else { return false } }
        let (roles, warnings) = try await bluetooth
        for warning in warnings { WalletCLI.warn("mdoc-holder: \(warning)") }
        let links = ProximityLinks(server: roles.server, client: roles.client, l2capListener: roles.l2capListener)
        while true {
            let outcome: ProximityOutcome
            do {
                outcome = try await holder.presentProximity(
                    over: links, consent: prompt,
                    showEngagement: { Self.show($0, outputs: outputs, uriOnStdout: uriOnStdout) },
                    progress: { p in
                        guard isatty(2) == 1, p.totalBytes > 4096 else { return }
                        Output.warn("\rsending \(Int(p.fractionCompleted * 100))% of \(p.totalBytes) bytes")
                    })
            } catch {
                throw WalletCLIError("\(error)")
            }
            if once || terminal?.hasGoneAway == true {
                let status = outcome.classification.presentExitStatus
                if status != 0 { throw ExitCode(status) }
                return
            }
        }
    }

    static func show(_ engagement: DeviceEngagement, outputs: [EngagementCommand.QROutput], uriOnStdout: Bool) {
        for output in outputs {
            switch output {
            case .uri:
                Output.line(engagement.uri)
            case .terminal:
                guard let code = try? QRCode(text: engagement.uri) else { continue }
                // Standard error when standard output carries the URI alone.
                let colours = TerminalColours.wanted(
                    fd: uriOnStdout ? 2 : 1, environment: ProcessInfo.processInfo.environment)
                let text = code.terminalString(colours: colours) + engagement.uri
                // Standard output carries the URI alone when it was asked for.
                if uriOnStdout { Output.warn(text) } else { Output.line(text) }
            case .png(let path):
                do {
                    try QRCode(text: engagement.uri).writePNG(to: path)
                } catch {
                    WalletCLI.warn("mdoc-holder: \(error)")
                }
            case .none:
                break
            }
        }
        var waits: [String] = []
        if let uuid = engagement.bleOptions?.peripheralServerUUID.flatMap({ BluetoothUUID(bytes: $0) }) {
            let psm = engagement.bleOptions?.l2capPSM.map { ", L2CAP PSM \($0)" } ?? ""
            waits.append("serving mdoc service \(uuid) (peripheral-server mode\(psm))")
        }
        if let uuid = engagement.bleOptions?.centralClientUUID.flatMap({ BluetoothUUID(bytes: $0) }) {
            waits.append("scanning for a reader serving \(uuid) (central-client mode)")
        }
        WalletCLI.warn("waiting for a reader: \(waits.joined(separator: "; "))")
    }
}

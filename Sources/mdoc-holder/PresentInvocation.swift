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

/// What `present` was asked to do, as plain values, and the doing of it. ``PresentCommand``
/// (ArgumentParser) and ``PresentCommandLine`` (the quick reader of the usual command lines)
/// both make one, so the two ways in run the same code.
struct PresentInvocation: Equatable, Sendable {
    /// `--adapter`.
    var adapter = "hci0"
    /// `--mode`, `--l2cap`, `--max-chunk-size`, `--engagement-version`.
    var proximity = ProximityOptions()
    /// `--qr` (repeatable); none given: the terminal.
    var qr: [EngagementCommand.QROutput] = []
    /// `--consent`.
    var consent = "tty"
    /// `--reader-trust`, `--untrusted-readers`, `--device-auth`.
    var trust = ReaderTrustValues()
    /// `--once`.
    var once = false
    /// `--store` and the secure-area options.
    var store = StoreValues()

    /// Serves readers one session at a time, each with a fresh engagement shown as asked, until
    /// stopped (or after one with `--once`; a response that released nothing or a failure is
    /// the exit status ``PresentCommand`` documents).
    func run() async throws {
        // On another core while the policy, the store and its key-encryption key are read: the
        // connection to BlueZ. Its errors come after the store's, as when it ran after it; a
        // store error cancels and awaits it (async let).
        let (adapter, l2cap) = (adapter, proximity.l2cap)
        async let bluetooth = PresentStart.bluetooth(
            adapter: adapter, l2cap: l2cap, log: { WalletCLI.warn("mdoc-holder: \($0)") })
        // The consent terminal, when there is one: once it has gone away (hung up), the session
        // under way ends declined and nothing is waited for after it.
        let (prompt, terminal) = try ConsentOptions.prompt(consent: consent)
        let settings = try trust.settings(proximity: proximity)
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

    /// Shows `engagement` on each output, then says on standard error what the holder waits for.
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

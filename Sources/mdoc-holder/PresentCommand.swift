import ArgumentParser
import BLEBlueZ
import BLETransport
import BlueZ
import CommandLineSupport
import Consent
import Foundation
import ISO18013
import MdocCrypto
import Presentation
import Proximity
import QRCode
import Wallet

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
        name: .customLong("qr"),
        help: ArgumentHelp(
            "How to show each engagement (repeatable): terminal, png:PATH (written atomically), uri (the mdoc: URI alone on standard output).",
            valueName: "terminal|png:PATH|uri"))
    var qr: [EngagementCommand.QROutput] = []

    @Option(
        help: ArgumentHelp(
            "Who answers requests: tty (a prompt on the terminal) or policy:FILE.", valueName: "tty|policy:FILE"))
    var consent: String = "tty"

    @Option(
        name: .customLong("reader-trust"),
        help: "Reader root certificate(s) (PEM); readers chaining to one are trusted. Repeatable.")
    var readerTrust: [String] = []

    @Option(help: "What to do with an unauthenticated or untrusted reader: refuse, ask (with a warning) or allow.")
    var untrustedReaders: String = "ask"

    @Option(
        name: .customLong("device-auth"),
        help:
            "How documents are authenticated: signature (deviceSignature) or mac (deviceMac, ECDH with the reader's key)."
    )
    var deviceAuth: String = "signature"

    @Flag(help: "Serve exactly one reader, then exit.")
    var once = false

    @OptionGroup var store: StoreOptions

    func run() async throws {
        guard let policy = UntrustedReaderPolicy(rawValue: untrustedReaders) else {
            throw ValidationError("--untrusted-readers must be refuse, ask or allow")
        }
        let prompt: any ConsentPrompt
        // The consent terminal, when there is one: once it has gone away (hung up), the session
        // under way ends declined and nothing is waited for after it.
        var terminal: ControllingTerminal?
        switch try ConsentChoice(parsing: consent, allowed: [.tty, .policy]) {
        case .policy(let path): prompt = try PolicyConsent(path: path)
        case .tty, .agent:
            let tty = try ControllingTerminal()
            terminal = tty
            prompt = TerminalConsentPrompt(io: tty)
        }
        let anchors = try readerTrust.flatMap { try CertificateFile.read($0, what: "reader trust anchor") }
        let wallet = try store.open()
        // A store without its key-encryption key (or TPM) refuses here, saying which and how.
        try wallet.checkKeysUsable()
        let outputs = qr.isEmpty ? [EngagementCommand.QROutput.terminal] : qr
        let uriOnStdout = outputs.contains { if case .uri = $0 { return true } else { return false } }

        let options = proximity.options
        let roles = BlueZRoles.holder(
            client: try await BlueZClient.connect(), adapter: adapter, l2cap: options.l2cap,
            warn: { WalletCLI.warn("mdoc-holder: \($0)") }, log: { WalletCLI.warn("mdoc-holder: \($0)") })
        guard let deviceAuthMode = DeviceAuthMode(rawValue: deviceAuth) else {
            throw ValidationError("--device-auth must be signature or mac, not \(deviceAuth)")
        }
        let configuration = HolderConfiguration(
            readerTrustAnchors: anchors, untrustedReaders: policy, deviceAuth: deviceAuthMode)
        var reported: Set<UnreadableRow> = []
        while true {
            let credentials = try wallet.presentableCredentials { row in
                // Once per damaged row, not once per session.
                if reported.insert(row).inserted { WalletCLI.warn("mdoc-holder: not presented: \(row)") }
            }
            guard !credentials.isEmpty else {
                throw WalletCLIError(
                    "no valid credential in the store: import one with `mdoc-holder credentials import`")
            }
            let holder = options.holder(
                server: roles.server, client: roles.client, l2capListener: roles.l2capListener,
                credentials: credentials, configuration: configuration, consent: prompt)
            let result = try await holder.runSession(
                showEngagement: { engagement in
                    Self.show(engagement, outputs: outputs, uriOnStdout: uriOnStdout)
                },
                progress: { p in
                    guard isatty(2) == 1, p.totalBytes > 4096 else { return }
                    Output.warn("\rsending \(Int(p.fractionCompleted * 100))% of \(p.totalBytes) bytes")
                })
            try wallet.record(result.records, channel: .ble)
            WalletCLI.warn(Self.summary(result))
            if once || terminal?.hasGoneAway == true {
                // A device key that could not be used answered status 10: not a presentation.
                if case .deviceKeyUnusable? = result.holderEnd { throw ExitCode(PresentOutcome.failed.exitCode) }
                switch PresentOutcome(result) {
                case .released: return
                case .nothingReleased: throw ExitCode(PresentOutcome.nothingReleased.exitCode)
                case .failed: throw ExitCode(PresentOutcome.failed.exitCode)
                }
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

    static func summary(_ result: ProximitySessionResult) -> String {
        var parts: [String] = []
        for r in result.records {
            switch r.outcome {
            case .sent:
                parts.append("sent \(r.elementsSent.count) elements of \(r.docType) to \(r.requester.displayName)")
            case .declined: parts.append("declined \(r.docType) for \(r.requester.displayName)")
            case .notReturned(let reason): parts.append("did not return \(r.docType): \(reason)")
            }
        }
        let mode = result.mode.map { " over \($0.rawValue) mode\(result.overL2CAP ? " (L2CAP)" : "")" } ?? ""
        let end = result.endDescription
        return "session: \(parts.isEmpty ? "no request" : parts.joined(separator: "; ")) (\(end))\(mode)"
    }
}

import ArgumentParser
import HolderRuntime
import ISO18013
import Presentation
import Proximity

extension ProximityModeOption: ExpressibleByArgument {}
extension EngagementVersion: ExpressibleByArgument {}

/// The options of a proximity session, as `present` and `serve` take them (one parser for
/// both, so the command line and the service offer the same).
struct ProximityArguments: ParsableArguments {
    @Option(
        help: ArgumentHelp(
            "BLE mode the engagement offers: peripheral (the holder is the GATT server), central (the reader is; "
                + "the holder scans for it and checks its Ident) or both (whichever the reader uses). For serve: "
                + "of StartProximity calls that name none, and of the kiosk.",
            valueName: "peripheral|central|both"))
    var mode: ProximityModeOption = .peripheral

    @Flag(
        help: ArgumentHelp(
            "Use L2CAP: in peripheral-server mode also offer a channel (engagement key 21 and the PSM "
                + "characteristic), in central-client mode use the reader's when it serves a PSM; GATT otherwise. "
                + "Without Bluetooth sockets in the kernel, GATT only, with a warning."))
    var l2cap = false

    @Option(
        help: ArgumentHelp(
            "Cap each BLE chunk (header byte included) below min(512, ATT MTU - 3), for a controller that loses "
                + "larger ATT packets.", valueName: "bytes"))
    var maxChunkSize: Int?

    @Option(
        help: ArgumentHelp(
            "DeviceEngagement version: 1.1 (second edition: OriginInfos and Capabilities, advertising ReaderAuthAll "
                + "and extended requests) or 1.0 (first edition, neither key), for a reader that refuses 1.1.",
            valueName: "1.1|1.0"))
    var engagementVersion: EngagementVersion = .secondEdition

    var options: ProximityOptions {
        ProximityOptions(
            modes: mode, l2cap: l2cap, maximumChunkSize: maxChunkSize, engagementVersion: engagementVersion)
    }

    func validate() throws {
        if let problem = options.problem { throw ValidationError("--max-chunk-size: \(problem)") }
    }
}

/// Who a proximity holder trusts and how it answers (`present` and `serve`, one parser for
/// both): reader roots, the untrusted-reader policy, device authentication.
struct ReaderTrustOptions: ParsableArguments {
    @Option(
        help: "Reader root certificate(s) (PEM or DER); readers chaining to one are trusted. Repeatable.")
    var readerTrust: [String] = []

    @Option(help: "What to do with an unauthenticated or untrusted reader: refuse, ask (with a warning) or allow.")
    var untrustedReaders: String = "ask"

    @Option(
        help:
            "How documents are authenticated: signature (deviceSignature) or mac (deviceMac, ECDH with the reader's key)."
    )
    var deviceAuth: String = "signature"

    /// The options as plain values.
    var values: ReaderTrustValues {
        ReaderTrustValues(readerTrust: readerTrust, untrustedReaders: untrustedReaders, deviceAuth: deviceAuth)
    }

    /// The holder's settings with these and `proximity`; the online settings at their defaults.
    func settings(proximity: ProximityOptions) throws -> HolderSettings {
        try values.settings(proximity: proximity)
    }
}

/// What ``ReaderTrustOptions`` were given, as plain values, defaults included
/// (``PresentCommandLine`` reads them without ArgumentParser).
struct ReaderTrustValues: Equatable, Sendable {
    var readerTrust: [String] = []
    var untrustedReaders = "ask"
    var deviceAuth = "signature"

    /// The holder's settings with these and `proximity`; the online settings at their defaults.
    func settings(proximity: ProximityOptions) throws -> HolderSettings {
        guard let policy = UntrustedReaderPolicy(rawValue: untrustedReaders) else {
            throw ValidationError("--untrusted-readers must be refuse, ask or allow")
        }
        guard let mode = DeviceAuthMode(rawValue: deviceAuth) else {
            throw ValidationError("--device-auth must be signature or mac, not \(deviceAuth)")
        }
        return HolderSettings(
            readerTrust: try readerTrust.flatMap { try WalletCLI.readCertificates($0, what: "reader trust anchor") },
            untrustedReaders: policy, deviceAuth: mode, proximity: proximity)
    }
}

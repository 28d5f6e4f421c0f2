import ArgumentParser
import CBOR
import CommandLineSupport
import FoundationEssentials
import ISO18013
import MdocCrypto
import Proximity
import QRCode

/// Makes a fresh device engagement (a new ephemeral key each time) and shows it: the QR code
/// a reader scans, the `mdoc:` URI, and what the engagement holds. The BLE presentation that
/// follows a scan is not built yet; this shows the first step of it.
struct EngagementCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "engagement",
        abstract: "Generate a device engagement and print its QR code, URI and decoded content.")

    /// Where the engagement goes: `terminal`, `uri`, `png:PATH` or `none`.
    enum QROutput: ExpressibleByArgument, Equatable, Sendable {
        case terminal, uri, none
        case png(String)

        init?(argument: String) {
            switch argument {
            case "terminal": self = .terminal
            case "uri": self = .uri
            case "none": self = .none
            default:
                guard argument.hasPrefix("png:"), argument.count > 4 else { return nil }
                self = .png(String(argument.dropFirst(4)))
            }
        }
    }

    @Option(
        help: ArgumentHelp(
            "How to show the engagement: terminal (QR drawn with half blocks), uri (the mdoc: URI alone), png:PATH (a PNG written atomically), none.",
            valueName: "terminal|uri|png:PATH|none"))
    var qr: QROutput = .terminal

    @Option(
        help:
            "Curve of the ephemeral device key: \(Curve.allCases.filter(\.supportsKeyAgreement).map(\.rawValue).joined(separator: ", "))."
    )
    var curve: String = "P-256"

    @Option(help: "BLE modes to offer: peripheral, central or both.")
    var mode: ProximityModeOption = .peripheral

    @Option(
        help: ArgumentHelp(
            "DeviceEngagement version: 1.1 (OriginInfos and Capabilities, as present makes) or 1.0 (neither).",
            valueName: "1.1|1.0"))
    var engagementVersion: EngagementVersion = .secondEdition

    func run() throws {
        guard let curve = Curve(rawValue: curve), curve.supportsKeyAgreement else {
            throw ValidationError("unknown or non key-agreement curve \(self.curve)")
        }
        let key = try PrivateKey.generate(curve)
        let ble = BleOptions(
            peripheralServerMode: mode.offers(.peripheralServer), centralClientMode: mode.offers(.centralClient),
            peripheralServerUUID: mode.offers(.peripheralServer) ? SecureRandom.bytes(16) : nil,
            centralClientUUID: mode.offers(.centralClient) ? SecureRandom.bytes(16) : nil)
        let engagement = DeviceEngagement(
            eDeviceKey: key.publicKey, retrievalMethods: [.ble(version: 1, ble)], version: engagementVersion)
        switch qr {
        case .uri:
            Output.line(engagement.uri)
        case .terminal:
            let colours = TerminalColours.wanted(fd: 1, environment: ProcessInfo.processInfo.environment)
            Output.line(try QRCode(text: engagement.uri).terminalString(colours: colours))
            Output.line(engagement.uri)
            Output.line("")
            Output.line("DeviceEngagement (\(engagement.bytes.count) bytes):")
            Output.line(try CBOR.decode(engagement.bytes).diagnostic())
        case .png(let path):
            try QRCode(text: engagement.uri).writePNG(to: path)
            Output.line("QR code written to \(path)")
            Output.line(engagement.uri)
        case .none:
            Output.line(try CBOR.decode(engagement.bytes).diagnostic())
        }
    }
}

import ArgumentParser
import BLEBlueZ
import BLETransport
import BlueZ
import CommandLineSupport
import Foundation
import ISO18013
import MdocCrypto
import OnlineTransport
import Presentation
import PrintableText
import ProximityReader

/// Requests an mdoc from a holder over Bluetooth LE, in mdoc peripheral-server mode (the
/// holder is the GATT server) or mdoc central-client mode (we are), and verifies the response.
extension ReaderAuthenticationFault: ExpressibleByArgument {}
extension ReaderBLEMode.Choice: ExpressibleByArgument {}
extension DeviceRequestVersion: ExpressibleByArgument {}

struct RequestCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "request",
        abstract: "Request an mdoc over Bluetooth LE from a holder's mdoc: engagement, and verify the response.",
        discussion: """
            In mdoc peripheral-server mode (the holder is the GATT server) the reader scans for the \
            service UUID in the engagement, connects and writes State 0x01. In mdoc central-client \
            mode it serves the mdoc service (with the Ident derived from the engagement) under the \
            engagement's central-client UUID, advertises it and waits for the holder to connect, \
            subscribe and write State 0x01. --mode auto (the default) uses peripheral-server mode \
            when the engagement offers it, else central-client mode. Then it sends the \
            SessionEstablishment, verifies the DeviceResponse (issuer signature and chain, digests, \
            validity, device authentication), and ends the session with SessionData status 20.

            Exits 0 when the response verifies and holds at least one document, 1 when it does not \
            verify or the holder declined (no documents, or it ended the session without a \
            response), 2 on bad input or a Bluetooth failure (the message names the step).
            """)

    static let defaultDocType = "org.iso.18013.5.1.mDL"
    static let mdlNameSpace = "org.iso.18013.5.1"
    static let defaultElements = ["family_name", "given_name", "birth_date", "portrait", "age_over_18"]

    @Argument(help: "The holder's engagement: the mdoc: URI its QR code carries.")
    var uri: String

    @Option(help: "The Bluetooth adapter to scan and connect with.")
    var adapter = "hci0"

    @Option(
        help: ArgumentHelp(
            "BLE mode: peripheral (the holder serves), central (we serve), or auto (peripheral when offered).",
            valueName: "auto|peripheral|central"))
    var mode: ReaderBLEMode.Choice = .auto

    @Flag(
        help: ArgumentHelp(
            "Use L2CAP: in peripheral-server mode the holder's channel when it offers one (engagement key 21 or "
                + "its PSM characteristic), in central-client mode serve a PSM characteristic and take the holder's "
                + "channel; GATT when either side cannot."))
    var l2cap = false

    @Option(help: "The document type to request.")
    var doctype = Self.defaultDocType

    @Option(
        name: .customLong("element"),
        help: ArgumentHelp(
            "A data element to request, as namespace:identifier. Repeatable. Default for the mDL: "
                + "family_name, given_name, birth_date, portrait, age_over_18.",
            valueName: "ns:id"))
    var elements: [String] = []

    @Option(name: .customLong("reader-key"), help: "The reader authentication private key (PEM).")
    var readerKey: String?

    @Option(
        name: .customLong("reader-cert"),
        help: "The reader certificate chain (PEM, leaf first) for --reader-key. Without both, no reader authentication."
    )
    var readerCert: String?

    @Option(
        name: .customLong("trust-anchor"),
        help: "IACA certificate(s) (PEM) the document signer must chain to. Repeatable; at least one.")
    var trustAnchors: [String] = []

    @OptionGroup var vical: VICALOptions
    @OptionGroup var status: StatusOptions
    @OptionGroup var shape: RequestShapeOptions

    @Option(
        help: ArgumentHelp(
            "For testing holders: send a deliberately wrong readerAuth (needs --reader-key and --reader-cert). "
                + "replayed-reader-auth: signed for another session of this engagement, with that session's "
                + "ReaderAuthenticationBytes attached; unprotected-alg: alg only in the unprotected header. "
                + "A correct holder treats the reader as invalid.",
            valueName: "replayed-reader-auth|unprotected-alg"))
    var hostile: ReaderAuthenticationFault?

    @Option(
        help: ArgumentHelp(
            "DeviceRequest version: 1.1 (second edition; signed with readerAuthAll alone when the holder's "
                + "engagement advertises ReaderAuthAll support) or 1.0 (first edition, per-document readerAuth). "
                + "Default: 1.1 to a 1.1 engagement, 1.0 to a 1.0 one.",
            valueName: "1.1|1.0"))
    var requestVersion: DeviceRequestVersion?

    @Flag(help: "Print the result as JSON.")
    var json = false

    @Option(help: "Seconds to wait at each step: finding the holder, connecting, its response.")
    var timeout: Double = 60

    @Flag(name: .shortAndLong, help: "Report each Bluetooth step on standard error.")
    var verbose = false

    /// Everything read from the command line before Bluetooth is touched.
    struct Plan {
        var engagement: DeviceEngagement
        var mode: ReaderBLEMode
        var items: ItemsRequest
        var trustAnchors: IssuerTrust
        var identity: ReaderIdentity?
        var timeout: Duration
        var statusResolver: StatusListResolver
    }

    func run() async throws {
        let plan: Plan
        do {
            plan = try makePlan()
        } catch {
            Self.fail("\(error)")
        }
        let exitCode = await request(plan)
        if exitCode != 0 { throw ExitCode(exitCode) }
    }

    // MARK: - Input

    func makePlan() throws -> Plan {
        let text = uri.trimmingCharacters(in: .whitespacesAndNewlines)
        let engagement = try DeviceEngagement(uri: text)
        if text.contains("=") {
            Self.warn(
                "warning: the mdoc: URI has base64url padding (\"=\"), which the QR content excludes; "
                    + "strict readers refuse it (read anyway)")
        }
        guard let options = engagement.bleOptions else {
            throw ReaderCLIError("the engagement offers no Bluetooth LE retrieval")
        }
        let bleMode = try ReaderBLEMode(choosing: mode, from: options)
        guard timeout > 0, timeout.isFinite else {
            throw ReaderCLIError("--timeout must be a positive number of seconds")
        }
        guard !trustAnchors.isEmpty || !vical.isEmpty else {
            throw ReaderCLIError("give at least one --trust-anchor (the IACA certificate) or --vical")
        }
        if hostile != nil, readerKey == nil {
            throw ReaderCLIError("--hostile signs a readerAuth: give --reader-key and --reader-cert")
        }
        var anchors: [Certificate] = []
        for path in trustAnchors { anchors += try InputFile.certificates(path) }
        return Plan(
            engagement: engagement, mode: bleMode, items: try shape.apply(to: itemsRequest()),
            trustAnchors: try vical.issuerTrust(anchors: anchors, at: Date()) { [json] in
                json ? Output.warn($0) : Output.line($0)
            },
            identity: try readerIdentity(), timeout: .milliseconds(Int64((timeout * 1000).rounded())),
            statusResolver: try status.makeResolver())
    }

    /// The ItemsRequest from --doctype and --element (namespaces in first-seen order).
    func itemsRequest() throws -> ItemsRequest {
        var pairs: [(String, String)] = []
        if elements.isEmpty {
            guard doctype == Self.defaultDocType else {
                throw ReaderCLIError("give the elements to request from \(doctype) with --element ns:id")
            }
            pairs = Self.defaultElements.map { (Self.mdlNameSpace, $0) }
        }
        for element in elements {
            guard let colon = element.lastIndex(of: ":"), colon != element.startIndex,
                element.index(after: colon) != element.endIndex
            else {
                throw ReaderCLIError("--element \(element) is not namespace:identifier")
            }
            pairs.append((String(element[..<colon]), String(element[element.index(after: colon)...])))
        }
        var nameSpaces: [ItemsRequest.NameSpace] = []
        for (nameSpace, identifier) in pairs {
            if let i = nameSpaces.firstIndex(where: { $0.name == nameSpace }) {
                if !nameSpaces[i].elements.contains(where: { $0.identifier == identifier }) {
                    nameSpaces[i].elements.append(ItemsRequest.Element(identifier))
                }
            } else {
                nameSpaces.append(ItemsRequest.NameSpace(nameSpace, [ItemsRequest.Element(identifier)]))
            }
        }
        return ItemsRequest(docType: doctype, nameSpaces: nameSpaces)
    }

    func readerIdentity() throws -> ReaderIdentity? {
        switch (readerKey, readerCert) {
        case (nil, nil):
            return nil
        case (let keyPath?, let certPath?):
            let key = try PrivateKey(pem: InputFile.text(keyPath))
            let chain = try InputFile.certificates(certPath)
            guard try chain[0].publicKey == key.publicKey else {
                throw ReaderCLIError("the first certificate in \(certPath) is not for the key in \(keyPath)")
            }
            return ReaderIdentity(key: key, chain: chain)
        default:
            throw ReaderCLIError("--reader-key and --reader-cert go together")
        }
    }

    // MARK: - The session

    /// The DeviceRequest to send: of --request-version (else as the engagement's version
    /// says), authenticated as ``ReaderSession/authenticated(_:)`` does; with --hostile, the
    /// faulty per-document readerAuth in a "1.0" request.
    func deviceRequest(in reader: ReaderSession, plan: Plan) throws -> DeviceRequest {
        let request: DeviceRequest
        if let fault = hostile, let identity = plan.identity {
            request = DeviceRequest(docRequests: [try fault.docRequest(plan.items, in: reader, identity: identity)])
        } else {
            request = try reader.deviceRequest(
                [plan.items], version: requestVersion, deviceRequestInfo: shape.deviceRequestInfo())
        }
        let authentication: String
        switch (hostile, reader.authentication(for: request)) {
        case (.some, _): authentication = "a deliberately wrong readerAuth"
        case (nil, .none): authentication = "no reader authentication"
        case (nil, .readerAuth): authentication = "readerAuth per document"
        case (nil, .readerAuthAll): authentication = "readerAuthAll"
        }
        Self.note(Self.describe(plan.engagement))
        Self.note("sending DeviceRequest \(request.version) with \(authentication)")
        return request
    }

    /// The engagement's version and, for "1.1", its capabilities, in words.
    static func describe(_ engagement: DeviceEngagement) -> String {
        let version = RemoteText.printable(engagement.version, limit: 16)
        guard let capabilities = engagement.capabilities else { return "holder engagement \(version)" }
        return "holder engagement \(version), capabilities: \(capabilities.summary)"
    }

    /// Runs the session; returns the exit code.
    func request(_ plan: Plan) async -> Int32 {
        let verbose = verbose
        let log: @Sendable (String) -> Void = { message in
            if verbose { Self.warn(message) }
        }
        var reader: ReaderSession
        let establishment: [UInt8]
        do {
            reader = try ReaderSession(
                engagement: plan.engagement, issuerTrust: plan.trustAnchors, identity: plan.identity)
            establishment = try reader.establishment(for: deviceRequest(in: reader, plan: plan))
        } catch {
            Self.fail("cannot make the request: \(error)")
        }

        let client: BlueZClient
        do {
            client = try await BlueZClient.connect(busAddress: nil)
        } catch {
            Self.fail("cannot connect to the system D-Bus: \(error)")
        }
        let connection: ReaderConnection
        do {
            connection = try await proximityReader(client, plan: plan, log: log).connect(
                plan.mode, engagement: plan.engagement)
        } catch {
            Self.fail("\(error)")
        }

        do {
            switch try await connection.exchange(establishment, with: &reader, timeout: plan.timeout, log: log) {
            case .response(let verified, _):
                let result = await status.report(verified, resolver: plan.statusResolver, requireDocuments: true)
                output(result)
                return result.valid ? 0 : 1
            case .noResponse(let how):
                return report(sessionEnded: how)
            case .unreadableResponse(let why):
                Self.warn("the holder's response could not be read: \(why)")
                return report(sessionEnded: "unreadable response (\(why))")
            }
        } catch {
            Self.fail("\(error)")
        }
    }

    /// The reader's side of the BLE session: the BlueZ GATT client (peripheral-server mode)
    /// or server (central-client mode) on --adapter, shared with the holder.
    private func proximityReader(_ client: BlueZClient, plan: Plan, log: @escaping @Sendable (String) -> Void)
        -> ProximityReader
    {
        let roles = BlueZRoles.reader(client: client, adapter: adapter, timeout: plan.timeout, l2cap: l2cap, log: log)
        var reader = ProximityReader(client: roles.client, server: roles.server, timeout: plan.timeout, log: log)
        reader.l2cap = l2cap
        reader.l2capListener = roles.l2capListener
        return reader
    }

    /// Prints a session that ended without a DeviceResponse; exit code 1.
    private func report(sessionEnded how: String) -> Int32 {
        output(ResultReport(sessionEnded: how))
        return 1
    }

    private func output(_ report: ResultReport) {
        if json {
            print((try? report.json()) ?? "{}")
        } else {
            print(report.text())
        }
    }

    /// What the reader does, on standard error (standard output holds the result).
    private static func note(_ message: String) {
        Output.warn("mdoc-reader: \(message)")
    }

    private static func warn(_ message: String) {
        Output.warn("mdoc-reader: \(RemoteText.printable(message, limit: 2000))")
    }

    /// Bad input or a transport failure: the message on standard error, exit code 2.
    private static func fail(_ message: String) -> Never {
        warn(message)
        Foundation.exit(2)
    }
}

import DBus
import HolderRuntime
import Proximity
import Wallet

/// `org.mdocholder.Holder1` at /org/mdocholder (dbus/org.mdocholder.Holder1.xml).
struct HolderInterface: DBusInterface {
    static let version: UInt32 = 1

    let sessions: SessionManager
    let store: CredentialStore
    let configuration: ServiceConfiguration

    var name: String { HolderSignals.interface }

    var introspection: DBusInterfaceDescription {
        typealias A = DBusInterfaceDescription.Argument
        return DBusInterfaceDescription(
            methods: [
                .init(
                    "StartProximity", inputs: [A("options", "a{sv}")],
                    outputs: [A("session", "t"), A("engagement_uri", "s")]),
                .init("Cancel", inputs: [A("session", "t")]),
                .init("PresentOnline", inputs: [A("url", "s"), A("options", "a{sv}")], outputs: [A("session", "t")]),
                .init(
                    "ReceiveCredential", inputs: [A("offer", "s"), A("options", "a{sv}")],
                    outputs: [A("credential_ids", "as"), A("pending_ids", "as")]),
                .init("ListCredentials", outputs: [A("credentials", "aa{sv}")]),
                .init("ListPending", outputs: [A("pending", "aa{sv}")]),
                .init(
                    "ResumePending", inputs: [A("options", "a{sv}")],
                    outputs: [A("credential_ids", "as"), A("pending_ids", "as"), A("failures", "as")]),
                .init("History", inputs: [A("limit", "u")], outputs: [A("entries", "aa{sv}")]),
                .init("RefreshStatus", outputs: [A("results", "aa{sv}")]),
            ],
            properties: [.init("Version", "u"), .init("KioskMode", "b")],
            signals: [
                .init("EngagementReady", [A("session", "t"), A("engagement_uri", "s")]),
                .init("ReaderConnected", [A("session", "t")]),
                .init("RequestReceived", [A("session", "t"), A("requester", "s"), A("doctypes", "as")]),
                .init("ResponseSent", [A("session", "t"), A("doctypes", "as"), A("elements", "u")]),
                .init(
                    "CredentialReceived",
                    [A("session", "t"), A("credential_id", "s"), A("doctype", "s"), A("copies", "u")]),
                .init("Ended", [A("session", "t"), A("reason", "s")]),
            ])
    }

    func properties() -> [String: DBusValue] {
        ["Version": .uint32(Self.version), "KioskMode": .boolean(configuration.kiosk != nil)]
    }

    func call(_ call: DBusMessage, on connection: isolated DBusConnection) -> DBusMethodResponse {
        let (sessions, store, configuration) = (sessions, store, configuration)
        do throws(HolderServiceError) {
            switch (call.member, call.signature) {
            case ("StartProximity", "a{sv}"):
                let (adapter, mode) = try Self.proximityOptions(call.body[0], configuration: configuration)
                return Self.deferred { () throws(HolderServiceError) in
                    let (session, uri) = try await sessions.startProximity(adapter: adapter, mode: mode)
                    return [.uint64(session), .string(uri)]
                }
            case ("Cancel", "t"):
                guard case .uint64(let session) = call.body[0] else { break }
                return Self.deferred { () throws(HolderServiceError) in
                    try await sessions.cancel(session)
                    return []
                }
            case ("PresentOnline", "sa{sv}"):
                guard let url = call.body[0].stringValue, let options = call.body[1].propertiesValue else { break }
                if let key = options.keys.sorted().first {
                    throw .invalidArguments(
                        "unknown option '\(CallerText.bounded(key))': PresentOnline takes no options yet")
                }
                return Self.deferred { () throws(HolderServiceError) in
                    return [.uint64(try await sessions.startOnline(url: url))]
                }
            case ("ReceiveCredential", "sa{sv}"):
                guard let offer = call.body[0].stringValue else { break }
                let options = try ReceiveOptions(call.body[1])
                return Self.deferred { () throws(HolderServiceError) in
                    let received = try await sessions.receive(offer: offer, options: options)
                    return [.strings(received.credentialIDs), .strings(received.pendingIDs)]
                }
            case ("ResumePending", "a{sv}"):
                let options = try ReceiveOptions(resuming: call.body[0])
                return Self.deferred { () throws(HolderServiceError) in
                    let resumed = try await sessions.resumePending(options: options)
                    return [
                        .strings(resumed.credentialIDs), .strings(resumed.pendingIDs), .strings(resumed.failures),
                    ]
                }
            case ("ListPending", ""):
                return Self.deferred { () throws(HolderServiceError) in
                    return [try WalletListing.pending(store)]
                }
            case ("ListCredentials", ""):
                return Self.deferred { () throws(HolderServiceError) in
                    return [try WalletListing.credentials(store)]
                }
            case ("History", "u"):
                let limit = call.body[0].integerValue ?? 0
                return Self.deferred { () throws(HolderServiceError) in
                    return [try WalletListing.history(store, limit: limit)]
                }
            case ("RefreshStatus", ""):
                guard let refresher = sessions.environment.statusRefresher else {
                    throw .notSupported("this service checks no credential status")
                }
                return Self.deferred { () throws(HolderServiceError) in
                    return [StatusRefresher.reply(try await refresher.refresh())]
                }
            case ("StartProximity", _), ("Cancel", _), ("PresentOnline", _), ("ReceiveCredential", _),
                ("ListCredentials", _), ("History", _), ("ListPending", _), ("ResumePending", _),
                ("RefreshStatus", _):
                throw .invalidArguments(
                    "\(call.member ?? "") does not take (\(call.signature)): see dbus/org.mdocholder.Holder1.xml")
            default:
                return .error(.unknownMethod("no method \(call.member ?? "") on \(name)"))
            }
        } catch {
            return .error(error.dbusError)
        }
        return .error(HolderServiceError.invalidArguments("malformed arguments").dbusError)
    }

    /// A reply sent when `body` is done; its error as the D-Bus error it names.
    static func deferred(_ body: @escaping @Sendable () async throws(HolderServiceError) -> [DBusValue])
        -> DBusMethodResponse
    {
        .deferred {
            do throws(HolderServiceError) {
                return try await body()
            } catch {
                throw error.dbusError
            }
        }
    }

    /// StartProximity's options: "adapter" s, "mode" s; anything else is refused.
    static func proximityOptions(_ value: DBusValue, configuration: ServiceConfiguration) throws(HolderServiceError)
        -> (String, ProximityModeOption)
    {
        guard let options = value.propertiesValue else { throw .invalidArguments("options must be a{sv}") }
        var adapter = configuration.defaultAdapter
        var mode = configuration.settings.proximity.modes
        for (key, value) in options.sorted(by: { $0.key < $1.key }) {
            switch key {
            case "adapter":
                guard let name = value.stringValue, Self.isAdapterName(name) else {
                    throw .invalidArguments(
                        "option adapter must be a string naming an adapter, like hci0 (letters, digits, - and _, "
                            + "at most \(Self.adapterNameLimit) characters)")
                }
                adapter = name
            case "mode":
                guard let text = value.stringValue, let parsed = ProximityModeOption(rawValue: text) else {
                    throw .invalidArguments("option mode must be the string peripheral, central or both")
                }
                mode = parsed
            default:
                throw .invalidArguments(
                    "unknown option '\(CallerText.bounded(key))': StartProximity takes adapter and mode")
            }
        }
        return (adapter, mode)
    }

    /// The longest adapter name accepted (BlueZ names them hciN).
    static let adapterNameLimit = 32

    /// An adapter name as BlueZ makes them: short, letters, digits, '-' and '_'; nothing a
    /// log line or an object path would have to escape.
    static func isAdapterName(_ name: String) -> Bool {
        !name.isEmpty && name.utf8.count <= adapterNameLimit
            && name.unicodeScalars.allSatisfy {
                $0.isASCII && ($0.properties.isAlphabetic || ("0"..."9").contains($0) || $0 == "-" || $0 == "_")
            }
    }
}

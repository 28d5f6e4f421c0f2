/// A D-Bus message as a Swift value: header fields and a decoded body.
///
/// Messages are read from libdbus in full on the connection's thread, so a `DBusMessage`
/// can cross tasks freely; file descriptors in the body are owned by their
/// ``DBusFileDescriptor`` values.
public struct DBusMessage: Sendable {
    public enum Kind: Sendable, Hashable {
        case methodCall
        case methodReturn
        case error
        case signal
    }

    public var kind: Kind
    /// Set by the connection when sent or received (0 before).
    public var serial: UInt32 = 0
    /// For replies and errors: the serial of the call answered.
    public var replySerial: UInt32?
    public var path: DBusObjectPath?
    public var interface: String?
    public var member: String?
    /// For errors.
    public var errorName: String?
    public var destination: String?
    /// The sender's unique name (set by the bus).
    public var sender: String?
    public var body: [DBusValue]
    /// For method calls: the caller wants no reply.
    public var noReplyExpected = false

    public init(kind: Kind, body: [DBusValue] = []) {
        self.kind = kind
        self.body = body
    }

    /// The signature of the body.
    public var signature: String { body.map(\.signature).joined() }

    /// A method call.
    public static func methodCall(
        destination: String?, path: DBusObjectPath, interface: String?, member: String, body: [DBusValue] = []
    ) -> DBusMessage {
        DBusMessage(.methodCall, destination: destination, path: path, interface: interface, member: member, body: body)
    }

    /// A signal.
    public static func signal(
        path: DBusObjectPath, interface: String, member: String, body: [DBusValue] = [], destination: String? = nil
    ) -> DBusMessage {
        DBusMessage(.signal, destination: destination, path: path, interface: interface, member: member, body: body)
    }

    /// A call or a signal: `member` of `interface` at `path`.
    private init(
        _ kind: Kind, destination: String?, path: DBusObjectPath, interface: String?, member: String,
        body: [DBusValue]
    ) {
        self.init(kind: kind, body: body)
        self.destination = destination
        self.path = path
        self.interface = interface
        self.member = member
    }

    /// `org.freedesktop.DBus.Properties.PropertiesChanged` for `interface` at `path`.
    public static func propertiesChanged(
        path: DBusObjectPath, interface: String, changed: [String: DBusValue], invalidated: [String] = []
    ) -> DBusMessage {
        .signal(
            path: path, interface: DBusStandardInterface.properties, member: "PropertiesChanged",
            body: [.string(interface), .properties(changed), .strings(invalidated)])
    }

    /// The error carried by an error message, nil for other kinds.
    public var error: DBusError? {
        guard kind == .error else { return nil }
        return DBusError(name: errorName ?? DBusError.failedName, message: body.first?.stringValue ?? "")
    }
}

/// Names of the standard interfaces.
public enum DBusStandardInterface {
    public static let properties = "org.freedesktop.DBus.Properties"
    public static let introspectable = "org.freedesktop.DBus.Introspectable"
    public static let objectManager = "org.freedesktop.DBus.ObjectManager"
    public static let peer = "org.freedesktop.DBus.Peer"
    public static let bus = "org.freedesktop.DBus"
}

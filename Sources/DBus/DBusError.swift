/// A D-Bus error: an error reply from a peer, or a local failure given the standard name
/// libdbus and the bus daemon use for it.
///
/// `name` is the D-Bus error name (`"org.bluez.Error.Failed"`,
/// `"org.freedesktop.DBus.Error.NoReply"`); `message` is the human-readable text. Errors this
/// module makes itself never carry argument values: only names, paths and signatures.
public struct DBusError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The D-Bus error name.
    public let name: String
    /// The human-readable message (may be empty).
    public let message: String

    public init(name: String, message: String) {
        self.name = name
        self.message = message
    }

    public var description: String { message.isEmpty ? name : "\(name): \(message)" }

    // MARK: Well-known names

    public static let failedName = "org.freedesktop.DBus.Error.Failed"
    public static let noMemoryName = "org.freedesktop.DBus.Error.NoMemory"
    public static let serviceUnknownName = "org.freedesktop.DBus.Error.ServiceUnknown"
    public static let nameHasNoOwnerName = "org.freedesktop.DBus.Error.NameHasNoOwner"
    public static let noReplyName = "org.freedesktop.DBus.Error.NoReply"
    public static let timeoutName = "org.freedesktop.DBus.Error.Timeout"
    public static let disconnectedName = "org.freedesktop.DBus.Error.Disconnected"
    public static let invalidArgsName = "org.freedesktop.DBus.Error.InvalidArgs"
    public static let invalidSignatureName = "org.freedesktop.DBus.Error.InvalidSignature"
    public static let unknownMethodName = "org.freedesktop.DBus.Error.UnknownMethod"
    public static let unknownObjectName = "org.freedesktop.DBus.Error.UnknownObject"
    public static let unknownInterfaceName = "org.freedesktop.DBus.Error.UnknownInterface"
    public static let unknownPropertyName = "org.freedesktop.DBus.Error.UnknownProperty"
    public static let propertyReadOnlyName = "org.freedesktop.DBus.Error.PropertyReadOnly"
    public static let notSupportedName = "org.freedesktop.DBus.Error.NotSupported"
    public static let accessDeniedName = "org.freedesktop.DBus.Error.AccessDenied"

    /// True for the errors that mean no answer came in time (`NoReply`, `Timeout`).
    public var isTimeout: Bool { name == Self.noReplyName || name == Self.timeoutName }

    public static func failed(_ message: String) -> DBusError { .init(name: failedName, message: message) }
    public static func invalidArgs(_ message: String) -> DBusError { .init(name: invalidArgsName, message: message) }
    public static func invalidSignature(_ message: String) -> DBusError {
        .init(name: invalidSignatureName, message: message)
    }
    public static func disconnected(_ message: String = "connection closed") -> DBusError {
        .init(name: disconnectedName, message: message)
    }
    public static func unknownMethod(_ message: String) -> DBusError {
        .init(name: unknownMethodName, message: message)
    }
    public static func unknownObject(_ message: String) -> DBusError {
        .init(name: unknownObjectName, message: message)
    }
    public static func unknownInterface(_ message: String) -> DBusError {
        .init(name: unknownInterfaceName, message: message)
    }
    public static func unknownProperty(_ message: String) -> DBusError {
        .init(name: unknownPropertyName, message: message)
    }
    public static func propertyReadOnly(_ message: String) -> DBusError {
        .init(name: propertyReadOnlyName, message: message)
    }
    public static func notSupported(_ message: String) -> DBusError {
        .init(name: notSupportedName, message: message)
    }
    static let noMemory = DBusError(name: noMemoryName, message: "libdbus ran out of memory")
}

import DBus

/// Errors of the BlueZ client.
///
/// Errors BlueZ itself returns keep their D-Bus name (`org.bluez.Error.NotPermitted`) in
/// ``bluez(name:message:)``; other D-Bus failures are ``dbus(_:)``. Messages never carry
/// characteristic values.
public enum BlueZError: Error, Sendable, Equatable, CustomStringConvertible {
    /// An `org.bluez.Error.*` reply.
    case bluez(name: String, message: String)
    /// Nobody owns `org.bluez` on the bus (bluetoothd not running).
    case serviceUnavailable
    /// No adapter of that name (`hci0`).
    case adapterNotFound(String)
    /// No device, service or characteristic matching the description.
    case notFound(String)
    /// What was awaited did not happen in time.
    case timedOut(String)
    /// `notify` on a characteristic nobody subscribed to.
    case notSubscribed(BluetoothUUID)
    /// The application or advertisement is not in a state that allows this.
    case invalidState(String)
    /// A reply or property did not have the documented shape.
    case unexpectedReply(String)
    /// Any other D-Bus failure (including `NoReply` timeouts of single calls).
    case dbus(DBusError)

    public static let failedName = "org.bluez.Error.Failed"
    public static let inProgressName = "org.bluez.Error.InProgress"
    public static let notPermittedName = "org.bluez.Error.NotPermitted"
    public static let notAuthorizedName = "org.bluez.Error.NotAuthorized"
    public static let invalidArgumentsName = "org.bluez.Error.InvalidArguments"
    public static let invalidOffsetName = "org.bluez.Error.InvalidOffset"
    public static let invalidValueLengthName = "org.bluez.Error.InvalidValueLength"
    public static let notSupportedName = "org.bluez.Error.NotSupported"
    public static let notConnectedName = "org.bluez.Error.NotConnected"
    public static let alreadyExistsName = "org.bluez.Error.AlreadyExists"
    public static let doesNotExistName = "org.bluez.Error.DoesNotExist"
    public static let notAvailableName = "org.bluez.Error.NotAvailable"
    public static let notReadyName = "org.bluez.Error.NotReady"

    /// The D-Bus error name, when the error came over D-Bus.
    public var dbusErrorName: String? {
        switch self {
        case .bluez(let name, _): name
        case .dbus(let error): error.name
        default: nil
        }
    }

    public var description: String {
        switch self {
        case .bluez(let name, let message): message.isEmpty ? name : "\(name): \(message)"
        case .serviceUnavailable: "org.bluez is not on the bus (is bluetoothd running?)"
        case .adapterNotFound(let name): "no Bluetooth adapter \(name)"
        case .notFound(let what): "not found: \(what)"
        case .timedOut(let what): "timed out: \(what)"
        case .notSubscribed(let uuid): "no subscriber for notifications of \(uuid)"
        case .invalidState(let what): "invalid state: \(what)"
        case .unexpectedReply(let what): "unexpected reply: \(what)"
        case .dbus(let error): error.description
        }
    }

    /// Classifies a D-Bus error.
    public init(_ error: DBusError) {
        if error.name.hasPrefix("org.bluez.Error.") {
            self = .bluez(name: error.name, message: error.message)
        } else if error.name == DBusError.serviceUnknownName || error.name == DBusError.nameHasNoOwnerName {
            self = .serviceUnavailable
        } else {
            self = .dbus(error)
        }
    }

    /// As a D-Bus error, for replying to BlueZ from exported objects.
    var asDBusError: DBusError {
        switch self {
        case .bluez(let name, let message): DBusError(name: name, message: message)
        case .dbus(let error): error
        case .notSubscribed, .invalidState: DBusError(name: Self.notPermittedName, message: description)
        default: DBusError(name: Self.failedName, message: description)
        }
    }
}

/// Runs `body`, turning D-Bus errors into ``BlueZError``.
func bluez<T>(_ body: () async throws -> T) async throws -> T {
    do {
        return try await body()
    } catch let error as DBusError {
        throw BlueZError(error)
    }
}

/// Runs `body` with a deadline: throws ``BlueZError/timedOut(_:)`` naming `what` when it
/// has not finished after `duration` (and cancels it).
func withTimeout<T: Sendable>(
    _ duration: Duration, _ what: String, _ body: @escaping @Sendable () async throws -> T
) async throws -> T {
    try await withThrowingTaskGroup(of: T.self) { group in
        group.addTask { try await body() }
        group.addTask {
            try await Task.sleep(for: duration)
            throw BlueZError.timedOut(what)
        }
        defer { group.cancelAll() }
        guard let result = try await group.next() else { throw BlueZError.timedOut(what) }
        return result
    }
}

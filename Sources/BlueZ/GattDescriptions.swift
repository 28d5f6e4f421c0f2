import DBus

/// A GATT characteristic flag as BlueZ spells it (`read`, `write-without-response`, …).
public struct GattCharacteristicFlag: RawRepresentable, Hashable, Sendable, ExpressibleByStringLiteral {
    public let rawValue: String
    public init(rawValue: String) { self.rawValue = rawValue }
    public init(stringLiteral value: String) { rawValue = value }

    public static let broadcast: Self = "broadcast"
    public static let read: Self = "read"
    public static let writeWithoutResponse: Self = "write-without-response"
    public static let write: Self = "write"
    public static let notify: Self = "notify"
    public static let indicate: Self = "indicate"
    public static let authenticatedSignedWrites: Self = "authenticated-signed-writes"
    public static let extendedProperties: Self = "extended-properties"
    public static let reliableWrite: Self = "reliable-write"
    public static let writableAuxiliaries: Self = "writable-auxiliaries"
    public static let encryptRead: Self = "encrypt-read"
    public static let encryptWrite: Self = "encrypt-write"
    public static let encryptAuthenticatedRead: Self = "encrypt-authenticated-read"
    public static let encryptAuthenticatedWrite: Self = "encrypt-authenticated-write"
    public static let secureRead: Self = "secure-read"
    public static let secureWrite: Self = "secure-write"

    static let readFlags: Set<Self> = [.read, .encryptRead, .encryptAuthenticatedRead, .secureRead]
    static let writeFlags: Set<Self> = [
        .write, .writeWithoutResponse, .reliableWrite, .authenticatedSignedWrites, .encryptWrite,
        .encryptAuthenticatedWrite, .secureWrite,
    ]
    static let notifyFlags: Set<Self> = [.notify, .indicate]
}

/// A characteristic of a ``GattApplication``.
public struct GattCharacteristicDescription: Sendable, Equatable {
    public var uuid: BluetoothUUID
    public var flags: [GattCharacteristicFlag]
    /// The value `ReadValue` answers with until ``GattApplication/setValue(_:of:)`` changes it.
    public var value: [UInt8]
    /// Export `WriteAcquired`: BlueZ then hands writes without response over a socket
    /// (`AcquireWrite`) instead of `WriteValue` calls.
    public var acquireWrite: Bool
    /// Export `NotifyAcquired`: BlueZ then takes notifications from a socket
    /// (`AcquireNotify`) instead of `PropertiesChanged` signals.
    public var acquireNotify: Bool
    /// Exported as the `MTU` property when set (BlueZoo takes the link MTU from it; real
    /// BlueZ negotiates its own and reports it in request options).
    public var mtu: UInt16?

    public init(
        uuid: BluetoothUUID, flags: [GattCharacteristicFlag], value: [UInt8] = [], acquireWrite: Bool = false,
        acquireNotify: Bool = false, mtu: UInt16? = nil
    ) {
        self.uuid = uuid
        self.flags = flags
        self.value = value
        self.acquireWrite = acquireWrite
        self.acquireNotify = acquireNotify
        self.mtu = mtu
    }

    var canRead: Bool { flags.contains { GattCharacteristicFlag.readFlags.contains($0) } }
    var canWrite: Bool { flags.contains { GattCharacteristicFlag.writeFlags.contains($0) } }
    var canNotify: Bool { flags.contains { GattCharacteristicFlag.notifyFlags.contains($0) } }
}

/// A service of a ``GattApplication``.
public struct GattServiceDescription: Sendable, Equatable {
    public var uuid: BluetoothUUID
    public var primary: Bool
    public var characteristics: [GattCharacteristicDescription]

    public init(uuid: BluetoothUUID, primary: Bool = true, characteristics: [GattCharacteristicDescription]) {
        self.uuid = uuid
        self.primary = primary
        self.characteristics = characteristics
    }
}

/// The options BlueZ passes with a GATT server request.
public struct GattRequest: Sendable, Equatable {
    /// The remote device (`/org/bluez/hci0/dev_…`), when BlueZ says.
    public var device: DBusObjectPath?
    /// The ATT MTU of the link, when BlueZ says.
    public var mtu: Int?
    /// `LE` or `BR/EDR`, when BlueZ says.
    public var link: String?
    public var offset: Int
    /// For writes: `command` (without response), `request`, `reliable`.
    public var writeType: GattWriteType?
    /// The write came through an acquired socket (always a command).
    public var viaSocket: Bool

    public init(
        device: DBusObjectPath? = nil, mtu: Int? = nil, link: String? = nil, offset: Int = 0,
        writeType: GattWriteType? = nil, viaSocket: Bool = false
    ) {
        self.device = device
        self.mtu = mtu
        self.link = link
        self.offset = offset
        self.writeType = writeType
        self.viaSocket = viaSocket
    }

    init(options: [String: DBusValue]) {
        device = options["device"]?.objectPathValue
        mtu = options["mtu"]?.integerValue
        link = options["link"]?.stringValue
        offset = options["offset"]?.integerValue ?? 0
        writeType = options["type"]?.stringValue.flatMap(GattWriteType.init(rawValue:))
        viaSocket = false
    }
}

/// What happens on a ``GattApplication``, in order.
public enum GattServerEvent: Sendable, Equatable {
    /// A client wrote `value` (from `WriteValue`, or a packet on an acquired write socket).
    case write(characteristic: BluetoothUUID, value: [UInt8], request: GattRequest)
    /// A client read the value (answered from the stored value).
    case read(characteristic: BluetoothUUID, request: GattRequest)
    /// A client subscribed: `StartNotify`, or `AcquireNotify` (then `request.viaSocket`).
    case notificationsStarted(characteristic: BluetoothUUID, request: GattRequest)
    /// The subscription ended (`StopNotify`, or the notify socket was closed).
    case notificationsStopped(characteristic: BluetoothUUID)
    /// BlueZ acquired the write socket (`AcquireWrite`); writes now arrive through it.
    case writeAcquired(characteristic: BluetoothUUID, request: GattRequest)
    /// BlueZ closed the write socket.
    case writeReleased(characteristic: BluetoothUUID)
}

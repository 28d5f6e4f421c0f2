import DBus

/// Names of the BlueZ D-Bus API.
public enum BlueZInterface {
    public static let service = "org.bluez"
    public static let adapter = "org.bluez.Adapter1"
    public static let device = "org.bluez.Device1"
    public static let advertisingManager = "org.bluez.LEAdvertisingManager1"
    public static let advertisement = "org.bluez.LEAdvertisement1"
    public static let gattManager = "org.bluez.GattManager1"
    public static let gattService = "org.bluez.GattService1"
    public static let gattCharacteristic = "org.bluez.GattCharacteristic1"
    public static let gattDescriptor = "org.bluez.GattDescriptor1"
}

/// A client of BlueZ (`org.bluez`) on one D-Bus connection.
///
/// All methods are asynchronous and never block the process: a slow or absent bluetoothd
/// delays only the calls waiting on it. Errors are ``BlueZError``.
public struct BlueZClient: Sendable {
    public let connection: DBusConnection

    public init(connection: DBusConnection) {
        self.connection = connection
    }

    /// Connects to the bus at `address`, or to the system bus when nil
    /// (`DBUS_SYSTEM_BUS_ADDRESS` when set).
    public static func connect(busAddress address: String? = nil) async throws -> BlueZClient {
        let connection =
            if let address { try await bluez { try await DBusConnection.connect(address: address) } } else {
                try await bluez { try await DBusConnection.system() }
            }
        return BlueZClient(connection: connection)
    }

    /// True when something owns `org.bluez` on the bus.
    public func isServiceRunning() async throws -> Bool {
        try await bluez { try await connection.nameOwner(BlueZInterface.service) != nil }
    }

    /// Every object BlueZ exports, with its interfaces and properties.
    public func managedObjects() async throws -> [DBusObjectPath: [String: [String: DBusValue]]] {
        try await bluez { try await connection.getManagedObjects(destination: BlueZInterface.service) }
    }

    /// The adapters BlueZ knows, sorted by name.
    public func adapters() async throws -> [AdapterInfo] {
        try await managedObjects().compactMap { path, interfaces in
            interfaces[BlueZInterface.adapter].map { AdapterInfo(path: path, properties: $0) }
        }.sorted { $0.name < $1.name }
    }

    /// The adapter called `name` (`hci0`).
    public func adapter(named name: String) async throws -> BlueZAdapter {
        guard let info = try await adapters().first(where: { $0.name == name }) else {
            throw BlueZError.adapterNotFound(name)
        }
        return BlueZAdapter(client: self, path: info.path)
    }

    /// Changes in BlueZ's availability and its adapters, in the order they happen:
    /// bluetoothd (re)starting or stopping, adapters appearing, disappearing or changing
    /// power. The subscription ends when the consumer stops iterating.
    public func events() async throws -> AsyncStream<BlueZEvent> {
        let service = BlueZInterface.service
        let rules: [DBusMatchRule] = [
            .nameOwnerChanged(service),
            DBusMatchRule(sender: service, interface: DBusStandardInterface.objectManager, member: "InterfacesAdded"),
            DBusMatchRule(sender: service, interface: DBusStandardInterface.objectManager, member: "InterfacesRemoved"),
            .propertiesChanged(sender: service, interface: BlueZInterface.adapter),
        ]
        let signals = try await bluez { try await connection.subscribe(anyOf: rules) }
        let (stream, continuation) = AsyncStream<BlueZEvent>.makeStream()
        let forwarder = Task {
            for await signal in signals {
                for event in BlueZEvent.events(from: signal) { continuation.yield(event) }
            }
            continuation.finish()
        }
        continuation.onTermination = { _ in forwarder.cancel() }
        return stream
    }

    // MARK: Helpers for the other types

    func subscribe(anyOf rules: [DBusMatchRule]) async throws -> AsyncStream<DBusMessage> {
        try await bluez { try await connection.subscribe(anyOf: rules) }
    }

    func call(
        _ path: DBusObjectPath, _ interface: String, _ member: String, _ body: [DBusValue] = [],
        timeout: Duration = .seconds(25)
    ) async throws -> [DBusValue] {
        try await bluez {
            try await connection.call(
                destination: BlueZInterface.service, path: path, interface: interface, member: member, body: body,
                timeout: timeout)
        }
    }

    func property(_ path: DBusObjectPath, _ interface: String, _ name: String) async throws -> DBusValue {
        try await bluez {
            try await connection.getProperty(
                destination: BlueZInterface.service, path: path, interface: interface, name: name)
        }
    }

    func properties(_ path: DBusObjectPath, _ interface: String) async throws -> [String: DBusValue] {
        try await bluez {
            try await connection.getAllProperties(destination: BlueZInterface.service, path: path, interface: interface)
        }
    }

    func setProperty(_ path: DBusObjectPath, _ interface: String, _ name: String, _ value: DBusValue) async throws {
        try await bluez {
            try await connection.setProperty(
                destination: BlueZInterface.service, path: path, interface: interface, name: name, value: value)
        }
    }

    /// Waits until property `name` of `interface` at `path` satisfies `condition`: reads it,
    /// then follows `PropertiesChanged` (subscribed first, so no change is missed).
    func waitForProperty(
        _ path: DBusObjectPath, _ interface: String, _ name: String, timeout: Duration,
        until condition: @escaping @Sendable (DBusValue) -> Bool
    ) async throws {
        let changes = try await bluez {
            try await connection.subscribe(
                .propertiesChanged(sender: BlueZInterface.service, path: path, interface: interface))
        }
        if condition(try await property(path, interface, name)) { return }
        try await withTimeout(timeout, "\(name) at \(path)") {
            for await change in changes {
                if let value = change.body.dropFirst().first?.propertiesValue?[name], condition(value) { return }
            }
            try Task.checkCancellation()
            throw BlueZError.serviceUnavailable
        }
    }
}

/// What ``BlueZClient/events()`` reports.
public enum BlueZEvent: Sendable, Equatable {
    /// `org.bluez` got an owner: bluetoothd started or restarted (re-register everything).
    case serviceAppeared
    /// `org.bluez` lost its owner: bluetoothd stopped; registrations are gone.
    case serviceVanished
    /// An adapter appeared (plugged in, or bluetoothd started).
    case adapterAdded(AdapterInfo)
    /// An adapter disappeared.
    case adapterRemoved(name: String)
    /// An adapter's power changed.
    case adapterPowered(name: String, powered: Bool)

    static func events(from signal: DBusMessage) -> [BlueZEvent] {
        switch signal.member {
        case "NameOwnerChanged":
            guard signal.body.count == 3, let old = signal.body[1].stringValue, let new = signal.body[2].stringValue
            else { return [] }
            var events: [BlueZEvent] = []
            if !old.isEmpty { events.append(.serviceVanished) }
            if !new.isEmpty { events.append(.serviceAppeared) }
            return events
        case "InterfacesAdded":
            guard signal.body.count == 2, let path = signal.body[0].objectPathValue,
                let properties = signal.body[1].interfacesValue?[BlueZInterface.adapter]
            else { return [] }
            return [.adapterAdded(AdapterInfo(path: path, properties: properties))]
        case "InterfacesRemoved":
            guard signal.body.count == 2, let path = signal.body[0].objectPathValue,
                signal.body[1].stringArrayValue?.contains(BlueZInterface.adapter) == true
            else { return [] }
            return [.adapterRemoved(name: path.lastElement)]
        case "PropertiesChanged":
            guard let path = signal.path, signal.body.count >= 2,
                let powered = signal.body[1].propertiesValue?["Powered"]?.boolValue
            else { return [] }
            return [.adapterPowered(name: path.lastElement, powered: powered)]
        default:
            return []
        }
    }
}

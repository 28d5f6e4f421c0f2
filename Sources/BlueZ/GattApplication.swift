import DBus
import Synchronization

/// A GATT server application: services and characteristics exported for BlueZ
/// (`org.bluez.GattService1`, `org.bluez.GattCharacteristic1` under an
/// `ObjectManager` root), registered with ``BlueZAdapter/register(_:)-(GattApplication)``.
///
/// What clients do arrives in order on ``events``. Values go out with ``notify(_:_:)``,
/// which returns once the notification has left this process (a `PropertiesChanged`
/// written to the bus, or a packet taken by the `AcquireNotify` socket), so a sender can
/// pace chunks one at a time. Reads are answered from the stored value
/// (``setValue(_:of:)``). Object paths: `<path>/service<i>/char<j>`.
public final class GattApplication: Sendable {
    public let path: DBusObjectPath
    public let services: [GattServiceDescription]
    /// Writes, reads, subscriptions, in the order they happened.
    public let events: AsyncStream<GattServerEvent>

    let tree: DBusObjectTree
    private let characteristics: [BluetoothUUID: CharacteristicState]
    private let continuation: AsyncStream<GattServerEvent>.Continuation
    private let connection = Mutex<DBusConnection?>(nil)

    /// Characteristic UUIDs must be unique in the application (they name characteristics
    /// in ``notify(_:_:)`` and in events).
    public init(path: DBusObjectPath = "/gatt", services: [GattServiceDescription]) throws {
        self.path = path
        self.services = services
        (events, continuation) = AsyncStream<GattServerEvent>.makeStream()
        tree = DBusObjectTree(root: path)
        var characteristics: [BluetoothUUID: CharacteristicState] = [:]
        let sink = EventSink(continuation: continuation)
        for (serviceIndex, service) in services.enumerated() {
            let servicePath = try path.appending("service\(serviceIndex)")
            try tree.add(servicePath, interfaces: [ServiceInterface(service: service)])
            for (index, description) in service.characteristics.enumerated() {
                guard characteristics[description.uuid] == nil else {
                    throw BlueZError.invalidState("characteristic \(description.uuid) appears twice")
                }
                let state = CharacteristicState(
                    description: description, path: try servicePath.appending("char\(index)"), servicePath: servicePath,
                    events: sink)
                characteristics[description.uuid] = state
                try tree.add(state.path, interfaces: [CharacteristicInterface(state: state)])
            }
        }
        self.characteristics = characteristics
    }

    deinit {
        continuation.finish()
    }

    /// The object path of characteristic `uuid`.
    public func path(of uuid: BluetoothUUID) -> DBusObjectPath? { characteristics[uuid]?.path }

    /// True while a client is subscribed to `uuid` (by `StartNotify` or `AcquireNotify`).
    public func isSubscribed(_ uuid: BluetoothUUID) -> Bool { characteristics[uuid]?.isSubscribed ?? false }

    /// Sets the value `ReadValue` answers with (no notification is sent).
    public func setValue(_ value: [UInt8], of uuid: BluetoothUUID) throws {
        guard let state = characteristics[uuid] else { throw BlueZError.notFound("characteristic \(uuid)") }
        state.setValue(value)
    }

    /// Returns once bluetoothd has read every notification written to `uuid`'s acquired
    /// socket (at once for `StartNotify` subscriptions, whose notifications leave in bus
    /// order). Notifications on two characteristics are ordered by waiting here in between:
    /// bluetoothd queues what it has read for the link in the order it read it.
    public func waitUntilTaken(_ uuid: BluetoothUUID) async {
        await characteristics[uuid]?.notifySocket?.waitUntilRead()
    }

    /// Sends a notification of `value` on `uuid` and returns once it has left this process:
    /// written to the acquired notify socket, or (`StartNotify` subscriptions) a
    /// `PropertiesChanged` of `Value` flushed to the bus. Throws
    /// ``BlueZError/notSubscribed(_:)`` when nobody is subscribed.
    public func notify(_ uuid: BluetoothUUID, _ value: [UInt8]) async throws {
        guard let state = characteristics[uuid] else { throw BlueZError.notFound("characteristic \(uuid)") }
        guard let connection = connection.withLock({ $0 }) else {
            throw BlueZError.invalidState("the application is not registered")
        }
        if let socket = state.notifySocket {
            try await socket.send(value)
            state.setValue(value)
            return
        }
        guard state.isSubscribed else { throw BlueZError.notSubscribed(uuid) }
        state.setValue(value)
        try await bluez {
            try await connection.emit(
                .propertiesChanged(
                    path: state.path, interface: BlueZInterface.gattCharacteristic, changed: ["Value": .bytes(value)]))
        }
        await connection.flush()
    }

    /// Ends ``events`` (for a consumer that is done with the application).
    public func finish() {
        continuation.finish()
    }

    func attach(to connection: DBusConnection) throws {
        try self.connection.withLock { current in
            guard current == nil else { throw BlueZError.invalidState("the application is already registered") }
            current = connection
        }
    }

    /// Forgets the connection and drops subscriptions and sockets.
    func detach() {
        connection.withLock { $0 = nil }
        for state in characteristics.values { state.reset() }
    }
}

/// Delivers events; shared by the characteristics of one application.
struct EventSink: Sendable {
    let continuation: AsyncStream<GattServerEvent>.Continuation
    func send(_ event: GattServerEvent) { continuation.yield(event) }
}

/// The mutable state of one characteristic, shared by its D-Bus interface (connection
/// thread) and the application's API (any task).
final class CharacteristicState: Sendable {
    let description: GattCharacteristicDescription
    let path: DBusObjectPath
    let servicePath: DBusObjectPath
    let events: EventSink
    private let state: Mutex<State>

    struct State {
        var value: [UInt8]
        var notifying = false
        var notifySocket: GattSocket?
        var writeSocket: GattSocket?
    }

    init(
        description: GattCharacteristicDescription, path: DBusObjectPath, servicePath: DBusObjectPath, events: EventSink
    ) {
        self.description = description
        self.path = path
        self.servicePath = servicePath
        self.events = events
        state = Mutex(State(value: description.value))
    }

    var uuid: BluetoothUUID { description.uuid }
    var value: [UInt8] { state.withLock { $0.value } }
    var notifySocket: GattSocket? { state.withLock { $0.notifySocket } }
    var isSubscribed: Bool { state.withLock { $0.notifying || $0.notifySocket != nil } }

    func setValue(_ value: [UInt8]) { state.withLock { $0.value = value } }

    func withState<T>(_ body: (inout State) throws -> T) rethrows -> T { try state.withLock { try body(&$0) } }

    func reset() {
        let sockets = state.withLock { state -> [GattSocket] in
            defer {
                state.notifying = false
                state.notifySocket = nil
                state.writeSocket = nil
            }
            return [state.notifySocket, state.writeSocket].compactMap { $0 }
        }
        for socket in sockets { socket.close() }
    }
}

/// `org.bluez.GattService1`.
final class ServiceInterface: DBusInterface {
    let name = BlueZInterface.gattService
    let service: GattServiceDescription

    init(service: GattServiceDescription) { self.service = service }

    var introspection: DBusInterfaceDescription {
        DBusInterfaceDescription(properties: [.init("UUID", "s"), .init("Primary", "b")])
    }

    func properties() -> [String: DBusValue] {
        ["UUID": .string(service.uuid.rawValue), "Primary": .boolean(service.primary)]
    }
}

/// `org.bluez.GattCharacteristic1`, server side.
final class CharacteristicInterface: DBusInterface {
    let name = BlueZInterface.gattCharacteristic
    let state: CharacteristicState

    init(state: CharacteristicState) { self.state = state }

    private var description: GattCharacteristicDescription { state.description }

    var introspection: DBusInterfaceDescription {
        let options = DBusInterfaceDescription.Argument("options", "a{sv}")
        var methods: [DBusInterfaceDescription.Method] = [
            .init("ReadValue", inputs: [options], outputs: [.init("value", "ay")]),
            .init("WriteValue", inputs: [.init("value", "ay"), options]),
            .init("StartNotify"), .init("StopNotify"), .init("Confirm"),
        ]
        if description.acquireWrite {
            methods.append(.init("AcquireWrite", inputs: [options], outputs: [.init("fd", "h"), .init("mtu", "q")]))
        }
        if description.acquireNotify {
            methods.append(.init("AcquireNotify", inputs: [options], outputs: [.init("fd", "h"), .init("mtu", "q")]))
        }
        return DBusInterfaceDescription(
            methods: methods,
            properties: properties().keys.sorted().map { .init($0, properties()[$0]?.signature ?? "v") })
    }

    func properties() -> [String: DBusValue] {
        var properties: [String: DBusValue] = [
            "UUID": .string(description.uuid.rawValue),
            "Service": .objectPath(state.servicePath),
            "Flags": .strings(description.flags.map(\.rawValue)),
            "Value": .bytes(state.value),
        ]
        if let mtu = description.mtu { properties["MTU"] = .uint16(mtu) }
        state.withState { current in
            if description.canNotify { properties["Notifying"] = .boolean(current.notifying) }
            if description.acquireWrite { properties["WriteAcquired"] = .boolean(current.writeSocket != nil) }
            if description.acquireNotify { properties["NotifyAcquired"] = .boolean(current.notifySocket != nil) }
        }
        return properties
    }

    func call(_ call: DBusMessage, on connection: isolated DBusConnection) -> DBusMethodResponse {
        let options = call.body.last?.propertiesValue ?? [:]
        switch (call.member, call.signature) {
        case ("ReadValue", "a{sv}"): return readValue(options)
        case ("WriteValue", "aya{sv}"): return writeValue(call.body[0].bytesValue ?? [], options)
        case ("StartNotify", ""): return startNotify(connection)
        case ("StopNotify", ""): return stopNotify(connection)
        case ("Confirm", ""): return .reply([])  // BlueZoo confirms every notification; real BlueZ indications.
        case ("AcquireWrite", "a{sv}"): return acquireWrite(options, connection)
        case ("AcquireNotify", "a{sv}"): return acquireNotify(options, connection)
        default: return .error(.unknownMethod("no such method on org.bluez.GattCharacteristic1"))
        }
    }

    private static func refuse(_ message: String) -> DBusMethodResponse {
        .error(DBusError(name: BlueZError.notPermittedName, message: message))
    }

    private func readValue(_ options: [String: DBusValue]) -> DBusMethodResponse {
        guard description.canRead else { return Self.refuse("read not permitted") }
        let request = GattRequest(options: options)
        let value = state.value
        guard request.offset <= value.count else {
            return .error(DBusError(name: BlueZError.invalidOffsetName, message: "offset past the end"))
        }
        state.events.send(.read(characteristic: state.uuid, request: request))
        return .reply([.bytes(Array(value[request.offset...]))])
    }

    private func writeValue(_ value: [UInt8], _ options: [String: DBusValue]) -> DBusMethodResponse {
        guard description.canWrite else { return Self.refuse("write not permitted") }
        state.events.send(.write(characteristic: state.uuid, value: value, request: GattRequest(options: options)))
        return .reply([])
    }

    private func startNotify(_ connection: isolated DBusConnection) -> DBusMethodResponse {
        guard description.canNotify else { return Self.refuse("notify not permitted") }
        let started = state.withState { current in
            defer { current.notifying = true }
            return !current.notifying
        }
        if started {
            emitChanged(["Notifying": .boolean(true)], connection)
            state.events.send(.notificationsStarted(characteristic: state.uuid, request: GattRequest()))
        }
        return .reply([])
    }

    private func stopNotify(_ connection: isolated DBusConnection) -> DBusMethodResponse {
        let stopped = state.withState { current in
            defer { current.notifying = false }
            return current.notifying
        }
        if stopped {
            emitChanged(["Notifying": .boolean(false)], connection)
            state.events.send(.notificationsStopped(characteristic: state.uuid))
        }
        return .reply([])
    }

    private func acquireWrite(_ options: [String: DBusValue], _ connection: isolated DBusConnection)
        -> DBusMethodResponse
    {
        guard description.acquireWrite, description.canWrite else {
            return .error(DBusError(name: BlueZError.notSupportedName, message: "AcquireWrite not supported"))
        }
        let characteristic = state
        return serveSocket(
            options, connection, slot: \.writeSocket, property: "WriteAcquired", refusal: "write already acquired",
            onPacket: { request, mtu in
                let device = request.device
                return { packet in
                    characteristic.events.send(
                        .write(
                            characteristic: characteristic.uuid, value: packet,
                            request: GattRequest(device: device, mtu: mtu, writeType: .command, viaSocket: true)))
                }
            },
            acquired: { .writeAcquired(characteristic: characteristic.uuid, request: $0) },
            released: .writeReleased(characteristic: characteristic.uuid))
    }

    private func acquireNotify(_ options: [String: DBusValue], _ connection: isolated DBusConnection)
        -> DBusMethodResponse
    {
        guard description.acquireNotify, description.canNotify else {
            return .error(DBusError(name: BlueZError.notSupportedName, message: "AcquireNotify not supported"))
        }
        let characteristic = state
        return serveSocket(
            options, connection, slot: \.notifySocket, property: "NotifyAcquired", refusal: "notify already acquired",
            onPacket: { _, _ in { _ in } },  // indication confirmations
            acquired: { .notificationsStarted(characteristic: characteristic.uuid, request: $0) },
            released: .notificationsStopped(characteristic: characteristic.uuid))
    }

    /// AcquireWrite and AcquireNotify: a socket pair whose far end goes to BlueZ, kept in
    /// `slot` until either side closes it; `property` (WriteAcquired / NotifyAcquired)
    /// follows, and the events report acquisition and release.
    private func serveSocket(
        _ options: [String: DBusValue], _ connection: isolated DBusConnection,
        slot: WritableKeyPath<CharacteristicState.State, GattSocket?> & Sendable, property: String, refusal: String,
        onPacket: (GattRequest, Int) -> @Sendable ([UInt8]) -> Void,
        acquired: (GattRequest) -> GattServerEvent, released: GattServerEvent
    ) -> DBusMethodResponse {
        guard state.withState({ $0[keyPath: slot] == nil }) else { return Self.refuse(refusal) }
        var request = GattRequest(options: options)
        let mtu = request.mtu ?? 23
        let ours: GattSocket
        let theirs: DBusFileDescriptor
        do {
            (ours, theirs) = try GattSocket.makePair(mtu: mtu)
        } catch {
            return .error(.failed("could not make a socket"))
        }
        state.withState { $0[keyPath: slot] = ours }
        let characteristic = state
        ours.start(
            onPacket: onPacket(request, mtu),
            onClose: { [weak connection] in
                let wasOurs = characteristic.withState { current in
                    guard current[keyPath: slot] === ours else { return false }
                    current[keyPath: slot] = nil
                    return true
                }
                guard wasOurs else { return }
                characteristic.events.send(released)
                Task {
                    try? await connection?.emit(
                        .propertiesChanged(
                            path: characteristic.path, interface: BlueZInterface.gattCharacteristic,
                            changed: [property: .boolean(false)]))
                }
            })
        emitChanged([property: .boolean(true)], connection)
        request.viaSocket = true
        state.events.send(acquired(request))
        return .reply([.unixFD(theirs), .uint16(UInt16(clamping: mtu))])
    }

    private func emitChanged(_ changed: [String: DBusValue], _ connection: isolated DBusConnection) {
        try? connection.emit(
            .propertiesChanged(path: state.path, interface: BlueZInterface.gattCharacteristic, changed: changed))
    }
}

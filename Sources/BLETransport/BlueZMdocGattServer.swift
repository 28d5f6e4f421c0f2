import BlueZ
import DBus

/// The mdoc service (peripheral-server mode) on a BlueZ adapter: a GATT application with
/// State, Client2Server and Server2Client under the session's service UUID, and an LE
/// advertisement of that UUID while it waits. One session at a time; ``stop()`` removes both.
public actor BlueZMdocGattServer: MdocGattServer {
    private let client: BlueZClient
    private let adapterName: String
    private var adapter: BlueZAdapter?
    private var application: GattApplication?
    private var advertisement: AdvertisementRegistration?
    private var forwarder: Task<Void, Never>?
    private var sessions = 0

    public init(client: BlueZClient, adapter: String) {
        self.client = client
        self.adapterName = adapter
    }

    public func start(serviceUUID: BLEUUID) async throws -> AsyncStream<MdocGattEvent> {
        try await start(serviceUUID: serviceUUID, l2capPSM: nil)
    }

    public func start(serviceUUID: BLEUUID, l2capPSM: UInt16?) async throws -> AsyncStream<MdocGattEvent> {
        await stop()
        let adapter = try await client.adapter(named: adapterName)
        try await adapter.powerOn()
        self.adapter = adapter
        sessions += 1
        let service = try Self.bluetoothUUID(serviceUUID)
        let app = try GattApplication(
            path: try DBusObjectPath("/org/mdocholder/session\(sessions)"),
            services: [
                GattServiceDescription(
                    uuid: service,
                    characteristics: [
                        GattCharacteristicDescription(
                            uuid: try Self.bluetoothUUID(MdocCharacteristic.state.uuid),
                            flags: [.notify, .writeWithoutResponse]),
                        GattCharacteristicDescription(
                            uuid: try Self.bluetoothUUID(MdocCharacteristic.client2Server.uuid),
                            flags: [.writeWithoutResponse]),
                        GattCharacteristicDescription(
                            uuid: try Self.bluetoothUUID(MdocCharacteristic.server2Client.uuid), flags: [.notify]),
                    ]
                        + (try l2capPSM.map {
                            [
                                GattCharacteristicDescription(
                                    uuid: try Self.bluetoothUUID(MdocBLEUUIDs.peripheralServer.l2capPSM),
                                    flags: [.read],
                                    value: L2CAPPSM.encode($0))
                            ]
                        } ?? []))
            ])
        try await adapter.register(app)
        application = app
        advertisement = try await adapter.register(
            LEAdvertisement(
                path: try DBusObjectPath("/org/mdocholder/advertisement\(sessions)"), serviceUUIDs: [service],
                localName: "mdoc", discoverable: true))

        let (stream, continuation) = AsyncStream<MdocGattEvent>.makeStream()
        let characteristics = try Dictionary(
            uniqueKeysWithValues: MdocCharacteristic.allCases.map { (try Self.bluetoothUUID($0.uuid), $0) })
        forwarder = Task {
            var lastMTU: Int?
            func mtu(_ request: GattRequest) {
                if let m = request.mtu, m != lastMTU {
                    lastMTU = m
                    continuation.yield(.mtu(m))
                }
            }
            for await event in app.events {
                switch event {
                case .write(let uuid, let value, let request):
                    guard let c = characteristics[uuid] else { continue }
                    mtu(request)
                    continuation.yield(.written(c, value))
                case .notificationsStarted(let uuid, let request):
                    guard let c = characteristics[uuid] else { continue }
                    mtu(request)
                    continuation.yield(.subscribed(c))
                case .notificationsStopped(let uuid):
                    guard let c = characteristics[uuid] else { continue }
                    continuation.yield(.unsubscribed(c))
                case .read, .writeAcquired, .writeReleased:
                    break
                }
            }
            continuation.finish()
        }
        return stream
    }

    public func notify(_ characteristic: MdocCharacteristic, _ value: [UInt8]) async throws {
        guard let application else { throw BlueZError.invalidState("the mdoc service is not registered") }
        try await application.notify(try Self.bluetoothUUID(characteristic.uuid), value)
    }

    public func stop() async {
        if let advertisement { try? await advertisement.unregister() }
        if let application, let adapter { try? await adapter.unregister(application) }
        application?.finish()
        forwarder?.cancel()
        advertisement = nil
        application = nil
        forwarder = nil
    }

    static func bluetoothUUID(_ uuid: BLEUUID) throws -> BluetoothUUID {
        guard let u = BluetoothUUID(uuid.description) else {
            throw BlueZError.invalidState("not a UUID: \(uuid)")
        }
        return u
    }
}

import BLETransport
import BlueZ
import DBus

/// The mdoc GATT server role on a BlueZ adapter, for the holder (mdoc peripheral-server
/// mode) and the reader (mdoc central-client mode): a GATT application with State,
/// Client2Server and Server2Client (and Ident, L2CAP PSM when the service has them) under the
/// session's service UUID, and an LE advertisement of that UUID, registered again every
/// ``advertisementCycle`` until a client connects (a controller may report an advertiser
/// only when advertising starts). One session at a time; ``stop()`` removes both.
///
/// The registrations survive bluetoothd restarting and the adapter going away and coming
/// back (``GattServerHost`` registers them again). The client going away is reported as
/// ``MdocGattEvent/disconnected``: its link going down (`Device1.Connected`, or the device
/// object removed), BlueZ stopping notifications of Server2Client (the client unsubscribed,
/// its process exited, or its link went down), or bluetoothd stopping mid-session.
public actor BlueZMdocGattServer: MdocGattServer {
    private let client: BlueZClient
    private let adapterName: String
    private let notifyVia: NotifyPath
    private let log: @Sendable (String) -> Void
    private let objectPath: String
    private let localName: String
    /// The characteristics of the session being served.
    private var uuids: MdocBluetoothUUIDs.Characteristics?
    private var host: GattServerHost?
    private var application: GattApplication?
    private var forwarders: [Task<Void, Never>] = []
    private var continuation: AsyncStream<MdocGattEvent>.Continuation?
    private var sessions = 0
    /// The reader's device object (from BlueZ's request options, or its link coming up).
    private var peer: DBusObjectPath?
    /// The reader subscribed or wrote in this session.
    private var readerSeen = false
    private var lastMTU: Int?

    /// How Server2Client and State notifications leave this process.
    public enum NotifyPath: Sendable {
        /// `StartNotify`, then a `PropertiesChanged` of `Value` per notification.
        case propertiesChanged
        /// `AcquireNotify`: BlueZ hands over a socket, one packet per notification.
        case acquiredSocket
    }

    /// - Parameters:
    ///   - objectPath: where the application and advertisement objects go
    ///     (`/org/mdocholder`, `/org/mdocreader`).
    ///   - localName: the advertised name.
    ///   - notifyVia: ``NotifyPath/acquiredSocket`` (the default) exports `AcquireNotify`:
    ///     bluetoothd then hands over a socket, and a client that only knows `StartNotify`
    ///     (BlueZoo, older stacks) still gets `PropertiesChanged`, per connection.
    ///   - log: hears how each reader subscribed (which path, the ATT MTU).
    public init(
        client: BlueZClient, adapter: String, notifyVia: NotifyPath = .acquiredSocket,
        objectPath: String = "/org/mdocholder", localName: String = "mdoc",
        log: @escaping @Sendable (String) -> Void = { _ in }
    ) {
        self.client = client
        self.adapterName = adapter
        self.notifyVia = notifyVia
        self.objectPath = objectPath
        self.localName = localName
        self.log = log
    }

    public func start(_ service: MdocGattService) async throws -> AsyncStream<MdocGattEvent> {
        await stop()
        sessions += 1
        let session = sessions
        let serviceUUID = service.uuid
        let app = try GattApplication(
            path: try DBusObjectPath("\(objectPath)/session\(session)"),
            services: [GattServiceDescription(uuid: serviceUUID, characteristics: try characteristics(of: service))])
        let host = GattServerHost(
            client: client, adapter: adapterName, application: app,
            advertisement: LEAdvertisement(
                path: try DBusObjectPath("\(objectPath)/advertisement\(session)"), serviceUUIDs: [serviceUUID],
                localName: localName, discoverable: true))
        // The first session fails when BlueZ is not there; later ones wait for it (a holder
        // serving readers keeps going across a bluetoothd restart).
        let hostEvents = try await host.start(waitForBlueZ: session > 1)
        self.host = host
        application = app
        uuids = service.characteristics
        peer = nil
        readerSeen = false
        lastMTU = nil

        let (stream, continuation) = AsyncStream<MdocGattEvent>.makeStream()
        self.continuation = continuation
        let characteristics = Dictionary(
            uniqueKeysWithValues: MdocCharacteristic.allCases.map {
                ($0.uuid(in: service.characteristics), $0)
            })
        forwarders = [
            Task { [weak self] in
                for await event in app.events { await self?.applicationEvent(event, characteristics, session) }
                await self?.finish(session)
            },
            Task { [weak self] in
                for await event in hostEvents { await self?.hostEvent(event, session) }
            },
            Task { [weak self] in
                // Until a reader shows up, the advertisement is registered again now and then
                // (a controller may report an advertiser only when advertising starts).
                while !Task.isCancelled {
                    try? await Task.sleep(for: Self.advertisementCycle)
                    guard let self, await self.awaitingReader(session) else { return }
                    await host.readvertise()
                }
            },
        ]
        return stream
    }

    /// How long the advertisement stays up unanswered before it is registered again.
    public static let advertisementCycle: Duration = .seconds(3)

    /// The GATT characteristics of `service`: State (notify, write without response),
    /// Client2Server (write without response), Server2Client (notify), then Ident and
    /// L2CAP PSM (read) when it has them.
    private func characteristics(of service: MdocGattService) throws -> [GattCharacteristicDescription] {
        let uuids = service.characteristics
        let acquire = notifyVia == .acquiredSocket
        var out = [
            GattCharacteristicDescription(
                uuid: uuids.state, flags: [.notify, .writeWithoutResponse],
                acquireNotify: acquire),
            GattCharacteristicDescription(
                uuid: uuids.client2Server, flags: [.writeWithoutResponse]),
            GattCharacteristicDescription(
                uuid: uuids.server2Client, flags: [.notify], acquireNotify: acquire),
        ]
        if let ident = service.ident, let uuid = uuids.ident {
            out.append(
                GattCharacteristicDescription(uuid: uuid, flags: [.read], value: ident.bytes))
        }
        if let psm = service.l2capPSM {
            out.append(
                GattCharacteristicDescription(
                    uuid: uuids.l2capPSM, flags: [.read], value: L2CAPPSM.encode(psm)))
        }
        return out
    }

    private func awaitingReader(_ session: Int) -> Bool {
        session == sessions && peer == nil && !readerSeen
    }

    public func notify(_ characteristic: MdocCharacteristic, _ value: [UInt8]) async throws {
        guard let application, let uuids else { throw BlueZError.invalidState("the mdoc service is not registered") }
        if characteristic == .state {
            // State and Server2Client leave through two sockets that bluetoothd reads in any
            // order: a State 0x02 must not overtake the last chunks of the response.
            await application.waitUntilTaken(uuids.server2Client)
        }
        try await application.notify(characteristic.uuid(in: uuids), value)
    }

    /// Removes the application and the advertisement and lets a reader still connected go.
    /// Also from a cancelled task: the D-Bus calls run in a task of their own (a call made
    /// from a cancelled task is abandoned at once), so a session cancelled or ended by an
    /// event its cancelled pump fed still leaves nothing registered.
    public func stop() async {
        await Task { await self.unregister() }.value
    }

    private func unregister() async {
        for task in forwarders { task.cancel() }
        forwarders = []
        if let host {
            // A client still connected when the session is over (one that stopped answering)
            // is let go, so it cannot hold the adapter. Only one that used our service: a
            // device merely connected on the adapter may be the link of our own GATT client
            // (a holder offering both modes that reached the reader's service first).
            if let peer, readerSeen { await host.disconnect(peer) }
            await host.stop()
        }
        application?.finish()
        continuation?.finish()
        continuation = nil
        host = nil
        application = nil
        uuids = nil
        peer = nil
    }

    // MARK: - Events

    private func applicationEvent(
        _ event: GattServerEvent, _ characteristics: [BluetoothUUID: MdocCharacteristic], _ session: Int
    ) {
        guard session == sessions, let continuation else { return }
        switch event {
        case .write(let uuid, let value, let request):
            guard let c = characteristics[uuid] else { return }
            seen(request)
            continuation.yield(.written(c, value))
        case .notificationsStarted(let uuid, let request):
            guard let c = characteristics[uuid] else { return }
            seen(request)
            if c == .server2Client {
                let mtu = request.mtu.map { ", ATT MTU \($0)" } ?? ""
                log(
                    "Server2Client subscribed: notifications through "
                        + (request.viaSocket ? "the AcquireNotify socket" : "PropertiesChanged") + mtu)
            }
            continuation.yield(.subscribed(c))
        case .notificationsStopped(let uuid):
            guard let c = characteristics[uuid] else { return }
            continuation.yield(.unsubscribed(c))
            // BlueZ stops notifications when the reader unsubscribes, when its client
            // process goes away, or when the link drops: in every case the session is over.
            if c == .server2Client { continuation.yield(.disconnected) }
        case .read(_, let request):
            // The holder reading the reader's Ident: a client is there.
            seen(request)
        case .writeAcquired, .writeReleased:
            break
        }
    }

    private func seen(_ request: GattRequest) {
        readerSeen = true
        if let device = request.device { peer = device }
        if let m = request.mtu.map(Self.usableMTU), m != lastMTU {
            lastMTU = m
            continuation?.yield(.mtu(m))
        }
    }

    private func hostEvent(_ event: GattHostEvent, _ session: Int) {
        guard session == sessions, let continuation else { return }
        switch event {
        case .deviceConnected(let device):
            if peer == nil { peer = device }
        case .deviceDisconnected(let device):
            if device == peer { continuation.yield(.disconnected) }
        case .lost:
            // The link went with bluetoothd or the adapter; a waiting session just waits for
            // the registrations to come back.
            if readerSeen { continuation.yield(.disconnected) }
        case .registered:
            break
        }
    }

    private func finish(_ session: Int) {
        guard session == sessions else { return }
        continuation?.finish()
    }

    /// The MTU to cut chunks for, from the ATT MTU BlueZ reports. BlueZ sends a notification
    /// as a Multiple Handle Value Notification when the reader supports those (another BlueZ
    /// does), and then carries at most MTU − 5 value bytes, cutting the rest silently
    /// (measured in the VM: 510-byte values arrive as 508 at MTU 513, 514 as 512 at MTU 517).
    /// Chunks are min(512, MTU − 3), so MTU − 2 keeps them whole; never below the ATT minimum.
    public static func usableMTU(_ mtu: Int) -> Int {
        max(MessageFragmenter.minimumMTU, mtu - 2)
    }
}

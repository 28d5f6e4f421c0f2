import BLETransport
import BlueZ
import DBus
import L2CAP
import Synchronization

/// The reader's mdoc service for a holder in mdoc central-client mode, over BlueZ: a GATT
/// application with State (notify, write without response), Client2Server (write without
/// response), Server2Client (notify) and Ident (read: the engagement's BLE Ident) under the
/// engagement's central-client UUID, advertised until the holder has subscribed to
/// Server2Client and written State 0x01. Our messages leave as Server2Client notifications,
/// one at a time; the holder's arrive as Client2Server writes.
struct BlueZReaderService: ReaderGattLink {
    /// The ATT MTU assumed when BlueZ passes none with the holder's requests (BlueZoo).
    static let defaultMTU = 512
    static let connectionPollInterval: Duration = .milliseconds(500)
    /// How long the advertisement stays up unanswered before it is registered again: a
    /// scanner that started after it may otherwise never see it (btvirt reports each
    /// advertisement once, when scanning or advertising is enabled).
    static let advertisementCycle: Duration = .seconds(3)

    let mtu: Int
    /// Whether the MTU came from BlueZ (else ``defaultMTU``).
    let mtuReported: Bool
    /// The holder's device object, when BlueZ named it.
    let holder: DBusObjectPath?
    /// The holder's L2CAP channel to us, when it used the PSM we served instead of GATT.
    let l2cap: L2CAPMessageChannel?
    let events: AsyncStream<ReaderLinkEvent>
    private let adapter: BlueZAdapter
    private let application: GattApplication
    private let advertisement: Advertiser
    private let server2Client: BluetoothUUID
    private let tasks: [Task<Void, Never>]

    /// What the application's events told before the session started.
    fileprivate struct Start: Sendable {
        var mtu: Int?
        var holder: DBusObjectPath?
    }

    /// Serves the mdoc service with `ident` under `serviceUUID` on adapter `adapterName`,
    /// advertises it, and returns once the holder has started the session (within `timeout`).
    static func open(
        client: BlueZClient, adapter adapterName: String, serviceUUID: BLEUUID, ident: [UInt8], timeout: Duration,
        l2cap: Bool = false, log: @escaping @Sendable (String) -> Void = { _ in }
    ) async throws(BLEReaderError) -> BlueZReaderService {
        let adapter = try await BlueZReaderLink.poweredAdapter(client: client, name: adapterName)
        let uuids = MdocBLEUUIDs.centralClient
        guard let service = BluetoothUUID(serviceUUID.description), let state = BluetoothUUID(uuids.state.description),
            let client2Server = BluetoothUUID(uuids.client2Server.description),
            let server2Client = BluetoothUUID(uuids.server2Client.description),
            let identUUID = uuids.ident.flatMap({ BluetoothUUID($0.description) })
        else { throw .serviceMissing(serviceUUID.description) }

        var listener: L2CAPListener?
        if l2cap {
            do {
                listener = try L2CAPListener()
            } catch {
                log("L2CAP not offered, GATT only: \(error)")
            }
        }
        let psmCharacteristic = listener.flatMap { listener in
            BluetoothUUID(uuids.l2capPSM.description).map {
                GattCharacteristicDescription(uuid: $0, flags: [.read], value: L2CAPPSM.encode(listener.psm))
            }
        }
        let application: GattApplication
        do {
            application = try GattApplication(
                path: "/org/mdocreader/session",
                services: [
                    GattServiceDescription(
                        uuid: service,
                        characteristics: [
                            GattCharacteristicDescription(uuid: state, flags: [.notify, .writeWithoutResponse]),
                            GattCharacteristicDescription(uuid: client2Server, flags: [.writeWithoutResponse]),
                            GattCharacteristicDescription(uuid: server2Client, flags: [.notify]),
                            GattCharacteristicDescription(uuid: identUUID, flags: [.read], value: ident),
                        ] + (psmCharacteristic.map { [$0] } ?? []))
                ])
            try await adapter.register(application)
        } catch {
            throw .serveFailed("registering the mdoc GATT service: \(error)")
        }
        let advertisement = Advertiser(
            adapter: adapter,
            advertisement: LEAdvertisement(
                path: "/org/mdocreader/advertisement", serviceUUIDs: [service], localName: "mdoc reader",
                discoverable: true))
        do {
            try await advertisement.start()
        } catch {
            try? await adapter.unregister(application)
            throw .serveFailed("advertising the mdoc service: \(error)")
        }
        log("serving mdoc service \(service) on \(adapterName) and advertising it; waiting for the holder")

        let (events, continuation) = AsyncStream<ReaderLinkEvent>.makeStream()
        let (started, startedContinuation) = AsyncStream<Start>.makeStream()
        let heard = HeardFlag()
        let forwarder = Task {
            var start = Start()
            var subscribed = false
            var running = false
            for await event in application.events {
                heard.set()
                switch event {
                case .write(let uuid, let value, let request):
                    start.mtu = start.mtu ?? request.mtu
                    start.holder = start.holder ?? request.device
                    if running {
                        if uuid == client2Server { continuation.yield(.chunk(value)) }
                        if uuid == state { continuation.yield(.state(value)) }
                    } else if uuid == state, BLEStateValue(value: value) == .start {
                        running = true
                    }
                case .notificationsStarted(let uuid, let request):
                    start.mtu = start.mtu ?? request.mtu
                    start.holder = start.holder ?? request.device
                    if uuid == server2Client { subscribed = true }
                case .notificationsStopped(let uuid):
                    // The holder went away (BlueZ drops subscriptions on disconnect).
                    if uuid == server2Client, running { continuation.yield(.disconnected) }
                case .read(_, let request):
                    start.holder = start.holder ?? request.device
                case .writeAcquired, .writeReleased:
                    break
                }
                if running, subscribed {
                    startedContinuation.yield(start)
                    startedContinuation.finish()
                }
            }
            startedContinuation.finish()
            continuation.finish()
        }

        let cycler = Task {
            while !Task.isCancelled {
                try? await Task.sleep(for: advertisementCycle)
                if Task.isCancelled || heard.isSet { return }
                log("no holder yet: advertising again")
                try? await advertisement.start()
            }
        }
        defer { cycler.cancel() }
        if let listener { log("serving L2CAP PSM \(listener.psm) too") }
        // The holder starts the session on our GATT service, or connects to our L2CAP PSM.
        let outcome: StartOutcome? = await withTaskGroup(of: StartOutcome?.self) { group in
            group.addTask {
                for await start in started { return .gatt(start) }
                return nil
            }
            if let listener {
                group.addTask { (try? await listener.accept()).map { .l2cap($0) } }
            }
            group.addTask {
                try? await Task.sleep(for: timeout)
                return nil
            }
            let first = await group.next() ?? nil
            listener?.close()
            group.cancelAll()
            return first
        }
        let start: Start
        var channel: L2CAPMessageChannel?
        switch outcome {
        case .gatt(let s)?:
            start = s
        case .l2cap(let socket)?:
            start = Start()
            channel = L2CAPMessageChannel(channel: socket, maximumMessageSize: 4 * 1024 * 1024)
            log("the holder \(socket.peer.map { "\($0)" } ?? "") opened our L2CAP channel")
        case nil:
            forwarder.cancel()
            await Self.withdraw(adapter: adapter, application: application, advertisement: advertisement)
            throw .holderDidNotStart(seconds: timeout.seconds)
        }
        var tasks = [forwarder]
        if let channel {
            tasks.append(
                Task {
                    while true {
                        do {
                            continuation.yield(.message(try await channel.receive()))
                        } catch {
                            continuation.yield(.disconnected)
                            return
                        }
                    }
                })
        }
        if let holder = start.holder {
            // BlueZ reports a lost link by `Connected` turning false (or the device object
            // going away).
            let device = BlueZDevice(client: client, path: holder)
            tasks.append(
                Task {
                    while !Task.isCancelled {
                        try? await Task.sleep(for: connectionPollInterval)
                        if Task.isCancelled { return }
                        let info = try? await device.info()
                        if Task.isCancelled { return }
                        if info?.connected != true {
                            continuation.yield(.disconnected)
                            return
                        }
                    }
                })
        }
        // BlueZ may send our notifications as Multiple Handle Value Notifications, which carry
        // at most MTU - 5 value bytes (the rest is cut silently); chunks are min(512, MTU - 3),
        // so cutting them for MTU - 2 keeps them whole (as BlueZMdocGattServer does).
        let mtu = start.mtu.flatMap { $0 >= MessageFragmenter.minimumMTU + 2 ? $0 - 2 : nil }
        return BlueZReaderService(
            mtu: mtu ?? defaultMTU, mtuReported: mtu != nil, holder: start.holder, l2cap: channel, events: events,
            adapter: adapter,
            application: application, advertisement: advertisement, server2Client: server2Client, tasks: tasks)
    }

    func start() async throws {}

    var carriesMessages: Bool { l2cap != nil }

    func sendChunk(_ chunk: [UInt8]) async throws {
        if let l2cap {
            try await l2cap.send(chunk)
        } else {
            try await application.notify(server2Client, chunk)
        }
    }

    func close() async {
        for task in tasks { task.cancel() }
        await l2cap?.close()
        await Self.withdraw(adapter: adapter, application: application, advertisement: advertisement)
    }

    private static func withdraw(adapter: BlueZAdapter, application: GattApplication, advertisement: Advertiser) async {
        _ = await BlueZReaderLink.withDeadline(BlueZReaderLink.closeTimeout) { await advertisement.stop() }
        _ = await BlueZReaderLink.withDeadline(BlueZReaderLink.closeTimeout) {
            try? await adapter.unregister(application)
        }
        application.finish()
    }
}

/// How the holder started the session.
private enum StartOutcome: Sendable {
    case gatt(BlueZReaderService.Start)
    case l2cap(L2CAPChannel)
}

/// Whether the holder has done anything on our service yet.
private final class HeardFlag: Sendable {
    private let value = Mutex(false)
    func set() { value.withLock { $0 = true } }
    var isSet: Bool { value.withLock { $0 } }
}

/// Our LE advertisement, registered again on demand (``start()`` replaces a registration).
private actor Advertiser {
    let adapter: BlueZAdapter
    let advertisement: LEAdvertisement
    private var registration: AdvertisementRegistration?

    init(adapter: BlueZAdapter, advertisement: LEAdvertisement) {
        self.adapter = adapter
        self.advertisement = advertisement
    }

    func start() async throws {
        await stop()
        registration = try await adapter.register(advertisement)
    }

    func stop() async {
        if let registration { try? await registration.unregister() }
        registration = nil
    }
}

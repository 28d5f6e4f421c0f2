import BLETransport
import BlueZ
import DBus
import L2CAP

/// The mdoc GATT client role on a BlueZ adapter, for the holder (mdoc central-client mode)
/// and the reader (mdoc peripheral-server mode): scans for the service UUID, connects, finds
/// the mode's characteristics, reads Ident when asked, subscribes to State and Server2Client
/// with `StartNotify` (values as `PropertiesChanged`) and writes with `WriteValue`
/// type=command. A lost link shows as `Connected` turning false, which is polled (BlueZ
/// sends no other signal for it that every BlueZ, and BlueZoo, agrees on).
public actor BlueZMdocGattClient: MdocGattClient {
    /// How long one scan runs before it is restarted (the scan itself goes on until found).
    static let scanRound: Duration = .seconds(30)
    /// How often `Connected` is checked.
    static let connectionPollInterval: Duration = .milliseconds(500)
    /// The cap on each D-Bus call made while disconnecting.
    static let closeTimeout: Duration = .seconds(3)

    private let client: BlueZClient
    private let adapterName: String
    private let scanTimeout: Duration?
    private let connectTimeout: Duration
    private let log: @Sendable (String) -> Void
    private var link: Link?

    private struct Link {
        let device: BlueZDevice
        let address: String
        let state: RemoteCharacteristic
        let client2Server: RemoteCharacteristic
        let server2Client: RemoteCharacteristic
        let ident: RemoteCharacteristic?
        let l2capPSM: RemoteCharacteristic?
        let randomAddress: Bool
        let continuation: AsyncStream<MdocGattClientEvent>.Continuation
        var tasks: [Task<Void, Never>]
        var subscribed = false
        var writePath = WritePath.untried
    }

    /// How Client2Server chunks leave: decided at the first chunk of each connection.
    private enum WritePath {
        case untried
        /// `AcquireWrite`'s socket: one packet per Write Command, no D-Bus call per chunk.
        case socket(GattWriteSocket)
        /// `WriteValue` calls (the stack offers no `AcquireWrite`).
        case writeValue
    }

    /// - Parameters:
    ///   - scanTimeout: how long to scan before ``MdocGattClientError/notFound(service:seconds:)``;
    ///     nil: until found or cancelled.
    ///   - connectTimeout: the bound on connecting to the device found.
    ///   - log: each step, for a verbose command line.
    public init(
        client: BlueZClient, adapter: String, scanTimeout: Duration? = nil, connectTimeout: Duration = .seconds(30),
        log: @escaping @Sendable (String) -> Void = { _ in }
    ) {
        self.client = client
        self.adapterName = adapter
        self.scanTimeout = scanTimeout
        self.connectTimeout = connectTimeout
        self.log = log
    }

    public func connect(serviceUUID: BluetoothUUID, characteristics: MdocBluetoothUUIDs.Characteristics) async throws
        -> MdocGattConnection
    {
        await disconnect()
        let adapter: BlueZAdapter
        do {
            adapter = try await client.adapter(named: adapterName)
            try await adapter.powerOn()
        } catch {
            throw MdocGattClientError.adapter(adapterName, "\(error)")
        }
        let service = serviceUUID
        log("scanning on \(adapterName) for service \(service)")
        let device = try await discover(service, on: adapter)
        let address = (try? await device.info().address) ?? "\(device.path)"
        log("connecting to \(address)")
        do {
            try await device.connect(timeout: connectTimeout)
        } catch {
            await Self.bounded { try? await device.disconnect() }
            throw MdocGattClientError.connectFailed(device: address, "\(error)")
        }
        do {
            return try await attach(device: device, address: address, service: service, uuids: characteristics)
        } catch {
            await Self.bounded { try? await device.disconnect() }
            throw error
        }
    }

    /// The device advertising `service`: scans in rounds until found, cancelled, or
    /// ``scanTimeout`` passed.
    private func discover(_ service: BluetoothUUID, on adapter: BlueZAdapter) async throws -> BlueZDevice {
        let clock = ContinuousClock()
        let deadline = scanTimeout.map { clock.now.advanced(by: $0) }
        while true {
            try Task.checkCancellation()
            var round = Self.scanRound
            if let deadline {
                let left = clock.now.duration(to: deadline)
                guard left > .zero else {
                    throw MdocGattClientError.notFound(
                        service: service.rawValue, seconds: scanTimeout.map { $0 / .seconds(1) } ?? 0)
                }
                round = min(round, left)
            }
            do {
                return try await adapter.discoverDevice(advertising: service, timeout: round)
            } catch BlueZError.timedOut {
                continue
            } catch {
                try Task.checkCancellation()
                throw MdocGattClientError.discoveryFailed("\(error)")
            }
        }
    }

    private func attach(
        device: BlueZDevice, address: String, service: BluetoothUUID, uuids: MdocBluetoothUUIDs.Characteristics
    ) async throws -> MdocGattConnection {
        let services: [RemoteGattService]
        do {
            services = try await device.services()
        } catch {
            throw MdocGattClientError.connectFailed(device: address, "reading its GATT services: \(error)")
        }
        guard let mdoc = services.first(where: { $0.uuid == service }) else {
            throw MdocGattClientError.serviceMissing(service.rawValue)
        }
        func find(_ uuid: BluetoothUUID) -> RemoteCharacteristic? {
            mdoc.characteristics.first { $0.uuid.rawValue == uuid.description }
        }
        func require(_ name: String, _ uuid: BluetoothUUID) throws -> RemoteCharacteristic {
            guard let c = find(uuid) else {
                throw MdocGattClientError.characteristicMissing(name: name, uuid: uuid.description)
            }
            return c
        }
        let state = try require("State", uuids.state)
        let client2Server = try require("Client2Server", uuids.client2Server)
        let server2Client = try require("Server2Client", uuids.server2Client)
        let ident = uuids.ident.flatMap(find)
        let l2capPSM = find(uuids.l2capPSM)
        let randomAddress = (try? await device.info().addressType) == "random"
        let mtu = (try? await client2Server.mtu()) ?? nil

        let (events, continuation) = AsyncStream<MdocGattClientEvent>.makeStream()
        let watcher = Task {
            while !Task.isCancelled {
                try? await Task.sleep(for: Self.connectionPollInterval)
                if Task.isCancelled { return }
                let info = try? await device.info()
                if Task.isCancelled { return }
                if info?.connected != true {
                    continuation.yield(.disconnected)
                    continuation.finish()
                    return
                }
            }
        }
        link = Link(
            device: device, address: address, state: state, client2Server: client2Server,
            server2Client: server2Client, ident: ident, l2capPSM: l2capPSM, randomAddress: randomAddress,
            continuation: continuation, tasks: [watcher])
        return MdocGattConnection(mtu: mtu.flatMap { $0 >= MessageFragmenter.minimumMTU ? $0 : nil }, events: events)
    }

    public func readIdent() async throws -> [UInt8]? {
        guard let link else { throw MdocGattClientError.notConnected }
        guard let ident = link.ident else { return nil }
        return try await ident.read()
    }

    public func openL2CAP(psm offered: UInt16?) async throws -> (any MdocL2CAPChannel)? {
        guard let link else { throw MdocGattClientError.notConnected }
        var psm = offered.flatMap { L2CAPPSM.dynamicRange.contains($0) ? $0 : nil }
        if psm == nil, let characteristic = link.l2capPSM {
            psm = L2CAPPSM.parse(try await characteristic.read())
        }
        guard let psm else { return nil }
        let address = try BluetoothDeviceAddress(link.address, kind: link.randomAddress ? .leRandom : .lePublic)
        let channel = try await L2CAPChannel.connect(to: address, psm: psm)
        log("L2CAP channel open to PSM \(psm) (send MTU \(channel.sendMTU))")
        return channel
    }

    public func subscribe() async throws {
        guard let current = link else { throw MdocGattClientError.notConnected }
        let continuation = current.continuation
        var tasks: [Task<Void, Never>] = []
        for (name, characteristic, role) in [
            ("Server2Client", current.server2Client, MdocCharacteristic.server2Client),
            ("State", current.state, MdocCharacteristic.state),
        ] {
            let values: AsyncStream<[UInt8]>
            do {
                values = try await characteristic.startNotifications()
            } catch {
                throw MdocGattClientError.subscribeFailed(name: name, "\(error)")
            }
            tasks.append(
                Task {
                    for await value in values { continuation.yield(.notified(role, value)) }
                })
        }
        link?.tasks += tasks
        link?.subscribed = true
    }

    public func write(_ characteristic: MdocCharacteristic, _ value: [UInt8]) async throws {
        guard let link else { throw MdocGattClientError.notConnected }
        switch characteristic {
        case .state:
            // A State write must not overtake Client2Server chunks still in the socket.
            if case .socket(let socket) = link.writePath { await socket.waitUntilRead() }
            try await link.state.write(value, type: .command)
        case .client2Server:
            if let socket = await writeSocket(link) {
                if value.count <= socket.maximumValueSize {
                    try await socket.send(value)
                    return
                }
                await socket.waitUntilRead()
            }
            try await link.client2Server.write(value, type: .command)
        case .server2Client: throw BlueZError.invalidState("Server2Client is not written by the GATT client")
        }
    }

    /// The `AcquireWrite` socket of this connection's Client2Server, acquired at the first
    /// chunk; nil when the stack offers none (then `WriteValue`, for the whole connection).
    private func writeSocket(_ current: Link) async -> GattWriteSocket? {
        switch current.writePath {
        case .socket(let socket): return socket
        case .writeValue: return nil
        case .untried: break
        }
        let path: WritePath
        do {
            let socket = try await current.client2Server.acquireWrite()
            log("Client2Server writes through the AcquireWrite socket (ATT MTU \(socket.mtu))")
            path = .socket(socket)
        } catch {
            log("Client2Server writes through WriteValue (no AcquireWrite: \(error))")
            path = .writeValue
        }
        // The link may have gone while BlueZ answered.
        guard link?.device.path == current.device.path else { return nil }
        link?.writePath = path
        if case .socket(let socket) = path { return socket }
        return nil
    }

    /// Stops notifications and disconnects. Also from a cancelled task: the D-Bus calls run
    /// in a task of their own (a call made from a cancelled task is abandoned at once), so a
    /// cancelled session still lets the reader go.
    public func disconnect() async {
        await Task { await self.release() }.value
    }

    private func release() async {
        guard let current = link else { return }
        link = nil
        for task in current.tasks { task.cancel() }
        if case .socket(let socket) = current.writePath { socket.close() }
        if current.subscribed {
            await Self.bounded { try? await current.server2Client.stopNotifications() }
            await Self.bounded { try? await current.state.stopNotifications() }
        }
        await Self.bounded { try? await current.device.disconnect() }
        current.continuation.finish()
    }

    /// Runs `body`, giving up after ``closeTimeout`` (D-Bus calls stop when cancelled).
    static func bounded(_ body: @escaping @Sendable () async -> Void) async {
        await withTaskGroup(of: Void.self) { group in
            group.addTask { await body() }
            group.addTask { try? await Task.sleep(for: closeTimeout) }
            await group.next()
            group.cancelAll()
        }
    }
}

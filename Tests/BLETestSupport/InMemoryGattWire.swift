import BLETransport
import Foundation

/// Two GATT roles joined in memory: ``server`` (an ``MdocGattServer``) and ``client`` (an
/// ``MdocGattClient``) reach each other the way BlueZ joins a server and a client on two
/// adapters: the client finds the service by UUID once it is served, reads Ident and the
/// L2CAP PSM, subscribes, writes; the server notifies subscribed characteristics. Either
/// side may be the holder or the reader, so one wire tests both roles of both sides.
public actor InMemoryGattWire {
    private var service: MdocGattService?
    private var serverEvents: AsyncStream<MdocGattEvent>.Continuation?
    private var clientEvents: AsyncStream<MdocGattClientEvent>.Continuation?
    private var subscribed: Set<MdocCharacteristic> = []
    /// The listener a PSM the server serves leads to.
    private var listener: InMemoryL2CAPListener?
    /// The MTU the client reports on connecting and the server sees with each write.
    public let mtu: Int?
    /// Every State value written or notified, by whom: "server" or "client".
    public private(set) var states: [(String, [UInt8])] = []
    public private(set) var serverStopped = false
    /// Whether the task that stopped the server was cancelled at the time (BlueZ calls made
    /// from such a task are refused at once).
    public private(set) var serverStoppedInCancelledTask: Bool?
    public private(set) var clientDisconnected = false

    public init(mtu: Int? = 185) { self.mtu = mtu }

    /// The server role.
    public nonisolated var server: Server { Server(wire: self) }
    /// The client role.
    public nonisolated var client: Client { Client(wire: self) }

    /// Makes an L2CAP PSM characteristic lead to `listener`.
    public func route(_ listener: InMemoryL2CAPListener) { self.listener = listener }

    public struct Server: MdocGattServer {
        let wire: InMemoryGattWire
        public func start(_ service: MdocGattService) async throws -> AsyncStream<MdocGattEvent> {
            await wire.serve(service)
        }
        public func notify(_ characteristic: MdocCharacteristic, _ value: [UInt8]) async throws {
            try await wire.notify(characteristic, value)
        }
        public func stop() async { await wire.stopServing(inCancelledTask: Task.isCancelled) }
    }

    public struct Client: MdocGattClient {
        let wire: InMemoryGattWire
        public func connect(serviceUUID: BluetoothUUID, characteristics: MdocBluetoothUUIDs.Characteristics)
            async throws
            -> MdocGattConnection
        {
            try await wire.connect(serviceUUID, characteristics)
        }
        public func readIdent() async throws -> [UInt8]? { await wire.service?.ident?.bytes }
        public func subscribe() async throws { try await wire.subscribe() }
        public func write(_ characteristic: MdocCharacteristic, _ value: [UInt8]) async throws {
            try await wire.write(characteristic, value)
        }
        public func disconnect() async { await wire.disconnect() }
        public func openL2CAP(psm: UInt16?) async throws -> (any MdocL2CAPChannel)? {
            await wire.openL2CAP(psm)
        }
    }

    // MARK: - The server's side

    private func serve(_ service: MdocGattService) -> AsyncStream<MdocGattEvent> {
        self.service = service
        serverStopped = false
        let (stream, continuation) = AsyncStream<MdocGattEvent>.makeStream()
        serverEvents = continuation
        return stream
    }

    private func notify(_ characteristic: MdocCharacteristic, _ value: [UInt8]) throws {
        guard let clientEvents, subscribed.contains(characteristic) else { throw MessageChannelError.closed }
        if characteristic == .state { states.append(("server", value)) }
        clientEvents.yield(.notified(characteristic, value))
    }

    private func stopServing(inCancelledTask: Bool) {
        serverStopped = true
        serverStoppedInCancelledTask = inCancelledTask
        service = nil
        serverEvents?.finish()
        serverEvents = nil
        clientEvents?.yield(.disconnected)
        clientEvents?.finish()
        clientEvents = nil
    }

    // MARK: - The client's side

    private func connect(_ uuid: BluetoothUUID, _ characteristics: MdocBluetoothUUIDs.Characteristics) async throws
        -> MdocGattConnection
    {
        // Polled, so that a cancelled connect (a case past its time bound) ends.
        while service?.uuid != uuid {
            try await Task.sleep(for: .milliseconds(5))
        }
        guard service?.characteristics == characteristics else {
            throw MdocGattClientError.characteristicMissing(name: "State", uuid: "\(characteristics.state)")
        }
        let (stream, continuation) = AsyncStream<MdocGattClientEvent>.makeStream()
        clientEvents = continuation
        clientDisconnected = false
        return MdocGattConnection(mtu: mtu, events: stream)
    }

    private func subscribe() throws {
        guard let serverEvents else { throw MdocGattClientError.notConnected }
        subscribed = [.server2Client, .state]
        if let mtu { serverEvents.yield(.mtu(mtu)) }
        serverEvents.yield(.subscribed(.server2Client))
        serverEvents.yield(.subscribed(.state))
    }

    private func write(_ characteristic: MdocCharacteristic, _ value: [UInt8]) throws {
        guard let serverEvents, clientEvents != nil else { throw MdocGattClientError.notConnected }
        if characteristic == .state { states.append(("client", value)) }
        serverEvents.yield(.written(characteristic, value))
    }

    private func disconnect() {
        // The client let go, also when the server had stopped first (after the client's
        // State 0x02 the served side may release before the client does).
        clientDisconnected = true
        guard clientEvents != nil else { return }
        subscribed = []
        clientEvents?.finish()
        clientEvents = nil
        serverEvents?.yield(.disconnected)
    }

    private func openL2CAP(_ psm: UInt16?) -> (any MdocL2CAPChannel)? {
        guard let listener, let served = psm ?? service?.l2capPSM, served == listener.psm else { return nil }
        return listener.connect()
    }
}

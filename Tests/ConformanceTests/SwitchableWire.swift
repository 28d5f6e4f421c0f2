import BLETestSupport
import BLETransport
import Synchronization

/// The reader's GATT roles for a whole conformance run, over a fresh in-memory wire per case:
/// the holder of each case gets a new ``InMemoryGattWire`` and the reader's roles follow it.
final class SwitchableWire: Sendable {
    private let current: Mutex<InMemoryGattWire>

    init(mtu: Int?) { current = Mutex(InMemoryGattWire(mtu: mtu)) }

    /// A new wire for the next case.
    func renew(mtu: Int?) -> InMemoryGattWire {
        let wire = InMemoryGattWire(mtu: mtu)
        current.withLock { $0 = wire }
        return wire
    }

    var wire: InMemoryGattWire { current.withLock { $0 } }

    var client: Client { Client(switch: self) }
    var server: Server { Server(switch: self) }

    struct Client: MdocGattClient {
        let `switch`: SwitchableWire
        func connect(serviceUUID: BluetoothUUID, characteristics: MdocBluetoothUUIDs.Characteristics) async throws
            -> MdocGattConnection
        {
            try await `switch`.wire.client.connect(serviceUUID: serviceUUID, characteristics: characteristics)
        }
        func readIdent() async throws -> [UInt8]? { try await `switch`.wire.client.readIdent() }
        func subscribe() async throws { try await `switch`.wire.client.subscribe() }
        func write(_ characteristic: MdocCharacteristic, _ value: [UInt8]) async throws {
            try await `switch`.wire.client.write(characteristic, value)
        }
        func disconnect() async { await `switch`.wire.client.disconnect() }
        func openL2CAP(psm: UInt16?) async throws -> (any MdocL2CAPChannel)? {
            try await `switch`.wire.client.openL2CAP(psm: psm)
        }
    }

    struct Server: MdocGattServer {
        let `switch`: SwitchableWire
        func start(_ service: MdocGattService) async throws -> AsyncStream<MdocGattEvent> {
            try await `switch`.wire.server.start(service)
        }
        func notify(_ characteristic: MdocCharacteristic, _ value: [UInt8]) async throws {
            try await `switch`.wire.server.notify(characteristic, value)
        }
        func stop() async { await `switch`.wire.server.stop() }
    }
}

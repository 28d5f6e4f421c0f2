/// The roles of the mdoc service's message characteristics, in either mode.
public enum MdocCharacteristic: Sendable, Hashable, CaseIterable {
    case state
    case client2Server
    case server2Client

    /// The standard's UUID of each in mdoc peripheral-server mode.
    public var uuid: BLEUUID { uuid(in: MdocBLEUUIDs.peripheralServer) }

    /// The standard's UUID of each in one mode's service.
    public func uuid(in characteristics: MdocBLEUUIDs.Characteristics) -> BLEUUID {
        switch self {
        case .state: return characteristics.state
        case .client2Server: return characteristics.client2Server
        case .server2Client: return characteristics.server2Client
        }
    }
}

/// What the GATT server reports about the one reader connected to it.
public enum MdocGattEvent: Sendable, Hashable {
    /// The ATT MTU became known (BlueZ passes it with writes and Acquire calls).
    case mtu(Int)
    case subscribed(MdocCharacteristic)
    case unsubscribed(MdocCharacteristic)
    /// A write without response from the reader.
    case written(MdocCharacteristic, [UInt8])
    case disconnected
}

/// The GATT server the holder needs in mdoc peripheral-server mode: State (notify, write
/// without response), Client2Server (write without response), Server2Client (notify), under
/// a service UUID that is new for every session, advertised while it waits. The BlueZ
/// implementation lives with the BlueZ client; tests use an in-memory one. Nothing here
/// knows about D-Bus.
public protocol MdocGattServer: Sendable {
    /// Registers the service and starts advertising; events arrive on the returned stream
    /// until ``stop()``.
    func start(serviceUUID: BLEUUID) async throws -> AsyncStream<MdocGattEvent>
    /// ``start(serviceUUID:)`` with the L2CAP PSM characteristic (read: the PSM as 4 bytes
    /// big-endian, ``L2CAPPSM/encode(_:)``) when `l2capPSM` is given.
    func start(serviceUUID: BLEUUID, l2capPSM: UInt16?) async throws -> AsyncStream<MdocGattEvent>
    /// Sends one notification; returns once it is out (the flow control of 18013-5 chunks).
    func notify(_ characteristic: MdocCharacteristic, _ value: [UInt8]) async throws
    /// Stops advertising, disconnects and unregisters the service.
    func stop() async
}

extension MdocGattServer {
    /// A server without the PSM characteristic ignores `l2capPSM`.
    public func start(serviceUUID: BLEUUID, l2capPSM: UInt16?) async throws -> AsyncStream<MdocGattEvent> {
        try await start(serviceUUID: serviceUUID)
    }
}

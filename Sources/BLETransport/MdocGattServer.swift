/// The roles of the mdoc service's message characteristics, in either mode.
public enum MdocCharacteristic: Sendable, Hashable, CaseIterable {
    case state
    case client2Server
    case server2Client

    /// The standard's UUID of each in one mode's service.
    public func uuid(in characteristics: MdocBluetoothUUIDs.Characteristics) -> BluetoothUUID {
        switch self {
        case .state: return characteristics.state
        case .client2Server: return characteristics.client2Server
        case .server2Client: return characteristics.server2Client
        }
    }
}

/// The mdoc GATT service one side serves for a session: the holder in mdoc
/// peripheral-server mode, the reader in mdoc central-client mode (with its Ident).
public struct MdocGattService: Sendable, Hashable {
    /// The session's service UUID (from or for the engagement).
    public var uuid: BluetoothUUID
    /// The mode's characteristic UUIDs.
    public var characteristics: MdocBluetoothUUIDs.Characteristics
    /// The Ident characteristic's value (read), in central-client mode.
    public var ident: BLEIdent?
    /// The L2CAP PSM characteristic's value (read, ``L2CAPPSM/encode(_:)``), when L2CAP is
    /// offered.
    public var l2capPSM: UInt16?

    /// The holder's service in mdoc peripheral-server mode.
    public static func peripheralServer(_ uuid: BluetoothUUID, l2capPSM: UInt16? = nil) -> Self {
        Self(uuid: uuid, characteristics: MdocBluetoothUUIDs.peripheralServer, ident: nil, l2capPSM: l2capPSM)
    }

    /// The reader's service in mdoc central-client mode.
    public static func centralClient(_ uuid: BluetoothUUID, ident: BLEIdent, l2capPSM: UInt16? = nil) -> Self {
        Self(uuid: uuid, characteristics: MdocBluetoothUUIDs.centralClient, ident: ident, l2capPSM: l2capPSM)
    }
}

/// What the GATT server reports about the one client connected to it.
public enum MdocGattEvent: Sendable, Hashable {
    /// The ATT MTU became known (BlueZ passes it with writes and Acquire calls).
    case mtu(Int)
    case subscribed(MdocCharacteristic)
    case unsubscribed(MdocCharacteristic)
    /// A write without response from the client.
    case written(MdocCharacteristic, [UInt8])
    case disconnected
}

/// The GATT server role, for the holder (mdoc peripheral-server mode) and the reader (mdoc
/// central-client mode): State (notify, write without response), Client2Server (write
/// without response), Server2Client (notify), the Ident and L2CAP PSM characteristics when
/// given, under a service UUID that is new for every session, advertised until a client
/// connects. The BlueZ implementation is in BLEBlueZ; tests use an in-memory one. Nothing
/// here knows about D-Bus.
public protocol MdocGattServer: Sendable {
    /// Registers `service` and starts advertising it; events arrive on the returned stream
    /// until ``stop()``.
    func start(_ service: MdocGattService) async throws -> AsyncStream<MdocGattEvent>
    /// Sends one notification; returns once it is out (the flow control of 18013-5 chunks).
    func notify(_ characteristic: MdocCharacteristic, _ value: [UInt8]) async throws
    /// Stops advertising, disconnects and unregisters the service; finishes also when the
    /// calling task is cancelled (a session that ends by cancellation still lets go).
    func stop() async
}

/// What the GATT client learns about the server's mdoc service.
public enum MdocGattClientEvent: Sendable, Hashable {
    /// A notification from the server: State, or one Server2Client chunk.
    case notified(MdocCharacteristic, [UInt8])
    /// The connection to the server is gone.
    case disconnected
}

/// One connection to the other side's mdoc service.
public struct MdocGattConnection: Sendable {
    /// The ATT MTU, when the GATT layer reports one.
    public var mtu: Int?
    /// Notifications (after ``MdocGattClient/subscribe()``) and the end of the connection.
    public var events: AsyncStream<MdocGattClientEvent>

    public init(mtu: Int?, events: AsyncStream<MdocGattClientEvent>) {
        self.mtu = mtu
        self.events = events
    }
}

/// The GATT client role, for the holder (mdoc central-client mode: the reader serves, with
/// its Ident) and the reader (mdoc peripheral-server mode: the holder serves): find the
/// device advertising the service UUID, connect, read the Ident when the holder checks it,
/// subscribe to State and Server2Client, and write State and Client2Server without
/// response. ``MdocCharacteristic`` names the roles; the UUIDs are the mode's
/// (``MdocBluetoothUUIDs``). The BlueZ implementation is in BLEBlueZ; tests use an in-memory one.
/// Nothing here knows about D-Bus.
///
/// One connection at a time: ``connect(serviceUUID:characteristics:)`` again replaces the
/// previous one.
public protocol MdocGattClient: Sendable {
    /// Scans for a device advertising `serviceUUID` until one is found (or the task is
    /// cancelled), connects and finds the mdoc service and its `characteristics`.
    func connect(serviceUUID: BluetoothUUID, characteristics: MdocBluetoothUUIDs.Characteristics) async throws
        -> MdocGattConnection
    /// The value of the server's Ident characteristic; nil when its service has none.
    func readIdent() async throws -> [UInt8]?
    /// Enables notifications of Server2Client and State (the holder: only after the Ident
    /// matched).
    func subscribe() async throws
    /// A write without response of State or Client2Server; returns once it is out (the flow
    /// control of 18013-5 chunks).
    func write(_ characteristic: MdocCharacteristic, _ value: [UInt8]) async throws
    /// Unsubscribes and disconnects (best effort); ends the connection's events. Finishes
    /// also when the calling task is cancelled.
    func disconnect() async
    /// Opens an L2CAP channel to `psm`, or when nil to the PSM in the server's L2CAP PSM
    /// characteristic; nil when there is none. The holder: only after the Ident matched.
    func openL2CAP(psm: UInt16?) async throws -> (any MdocL2CAPChannel)?
}

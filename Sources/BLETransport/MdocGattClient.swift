/// What the holder's GATT client learns about the reader's mdoc service in mdoc
/// central-client mode (the reader is the GATT server).
public enum MdocGattClientEvent: Sendable, Hashable {
    /// A notification from the reader: State, or one Server2Client chunk.
    case notified(MdocCharacteristic, [UInt8])
    /// The connection to the reader is gone.
    case disconnected
}

/// One connection to a reader's mdoc service.
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

/// The GATT client the holder needs in mdoc central-client mode: find the reader advertising
/// the engagement's central-client UUID, connect, read its Ident, subscribe to its State and
/// Server2Client, and write State and Client2Server without response. The characteristics
/// are the central-client ones (``MdocBLEUUIDs/centralClient``); ``MdocCharacteristic``
/// names their roles. The BlueZ implementation is ``BlueZMdocGattClient``; tests use an
/// in-memory one. Nothing here knows about D-Bus.
///
/// One connection at a time: ``connect(serviceUUID:)`` again replaces the previous one.
public protocol MdocGattClient: Sendable {
    /// Scans for a reader advertising `serviceUUID` until one is found (or the task is
    /// cancelled), connects and finds the mdoc service and its characteristics.
    func connect(serviceUUID: BLEUUID) async throws -> MdocGattConnection
    /// The value of the reader's Ident characteristic; nil when its service has none.
    func readIdent() async throws -> [UInt8]?
    /// Enables notifications of Server2Client and State; only after the Ident matched.
    func subscribe() async throws
    /// A write without response of State or Client2Server; returns once it is out (the flow
    /// control of 18013-5 chunks).
    func write(_ characteristic: MdocCharacteristic, _ value: [UInt8]) async throws
    /// Unsubscribes and disconnects (best effort); ends the connection's events.
    func disconnect() async
    /// Opens an L2CAP channel to the PSM in the reader's L2CAP PSM characteristic; nil when
    /// the reader serves none. Only after the Ident matched.
    func openL2CAP() async throws -> (any MdocL2CAPChannel)?
}

extension MdocGattClient {
    /// A client without L2CAP: GATT only.
    public func openL2CAP() async throws -> (any MdocL2CAPChannel)? { nil }
}

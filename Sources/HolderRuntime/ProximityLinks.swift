import BLETransport

/// The Bluetooth roles a proximity session may use: our GATT server (mdoc peripheral-server
/// mode), a GATT client (mdoc central-client mode) and L2CAP listeners. The command line and
/// the service fill it from BlueZ; tests from an in-memory wire.
public struct ProximityLinks: Sendable {
    public var server: any MdocGattServer
    public var client: any MdocGattClient
    /// Opens an L2CAP listener; nil when the kernel has no L2CAP sockets (GATT only).
    public var l2capListener: (@Sendable () throws -> any MdocL2CAPListener)?

    public init(
        server: any MdocGattServer, client: any MdocGattClient,
        l2capListener: (@Sendable () throws -> any MdocL2CAPListener)? = nil
    ) {
        self.server = server
        self.client = client
        self.l2capListener = l2capListener
    }
}

import BLETransport
import BlueZ
import L2CAP

/// The BlueZ GATT roles and L2CAP listeners of one adapter, on one BlueZ connection: what
/// `present`, `serve` (per adapter) and `mdoc-reader request` run their sessions on. The
/// holder and the reader get the same two role implementations; only their object paths
/// and advertised names differ.
public struct BlueZRoles: Sendable {
    public let server: BlueZMdocGattServer
    public let client: BlueZMdocGattClient
    /// Opens an L2CAP listener on a dynamic PSM; nil when the kernel has no Bluetooth L2CAP
    /// sockets (then GATT only).
    public let l2capListener: (@Sendable () throws -> any MdocL2CAPListener)?

    /// The holder's roles on `adapter`. With `l2cap`, `warn` hears why L2CAP is not offered
    /// when the kernel cannot; `log` hears how readers subscribe.
    public static func holder(
        client: BlueZClient, adapter: String, l2cap: Bool, warn: (String) -> Void,
        log: @escaping @Sendable (String) -> Void = { _ in }
    ) -> BlueZRoles {
        warnAboutBluetoothd(warn)
        return BlueZRoles(
            server: BlueZMdocGattServer(client: client, adapter: adapter, log: log),
            client: BlueZMdocGattClient(client: client, adapter: adapter),
            l2capListener: l2cap ? listenerFactory(warn: warn) : nil)
    }

    /// The reader's roles on `adapter`: the scan and the connection bounded by `timeout`.
    /// The L2CAP listener is opened only in central-client mode (``ProximityReader`` says
    /// when it cannot).
    public static func reader(
        client: BlueZClient, adapter: String, timeout: Duration, l2cap: Bool, log: @escaping @Sendable (String) -> Void
    ) -> BlueZRoles {
        let listener: @Sendable () throws -> any MdocL2CAPListener = { try L2CAPListener() }
        warnAboutBluetoothd(log)
        return BlueZRoles(
            server: BlueZMdocGattServer(
                client: client, adapter: adapter, objectPath: "/org/mdocreader", localName: "mdoc reader", log: log),
            client: BlueZMdocGattClient(
                client: client, adapter: adapter, scanTimeout: timeout, connectTimeout: timeout, log: log),
            l2capListener: l2cap ? listener : nil)
    }

    /// Tells `warn` what bluetoothd's configuration (when readable) gets wrong for 18013-5
    /// (docs/bluez-configuration.md): EATT, which can reorder chunks.
    public static func warnAboutBluetoothd(
        _ warn: (String) -> Void, path: String = BluetoothdConfiguration.defaultPath
    ) {
        for warning in BluetoothdConfiguration.read(path: path)?.warnings(path: path) ?? [] { warn(warning) }
    }

    /// L2CAP listeners, when a first one opens (the kernel has L2CAP sockets at all); else
    /// nil after telling `warn` why.
    public static func listenerFactory(warn: (String) -> Void) -> (@Sendable () throws -> any MdocL2CAPListener)? {
        do {
            try L2CAPListener().close()
        } catch {
            warn("L2CAP not offered, GATT only: \(error)")
            return nil
        }
        return { () throws -> any MdocL2CAPListener in try L2CAPListener() }
    }
}

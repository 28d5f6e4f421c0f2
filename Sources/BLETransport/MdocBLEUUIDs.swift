/// The characteristic UUIDs of the ISO 18013-5 BLE service (8.3.3.1.1), for both modes.
///
/// All share the base `xxxxxxxx-a123-48ce-896b-4c76973373e6`; the service UUID itself is
/// random per session and travels in the DeviceEngagement.
public enum MdocBluetoothUUIDs {
    /// The characteristics of one mode's service.
    public struct Characteristics: Sendable, Hashable {
        /// State: 0x01 start, 0x02 end (``BLEStateValue``). Notify + write without response.
        public let state: BluetoothUUID
        /// Client2Server: chunks written by the GATT client. Write without response.
        public let client2Server: BluetoothUUID
        /// Server2Client: chunks notified by the GATT server. Notify.
        public let server2Client: BluetoothUUID
        /// Ident: 16 bytes the GATT client reads to check it reached the right server. Only in
        /// mdoc central-client mode (the reader serves it; the holder checks it).
        public let ident: BluetoothUUID?
        /// L2CAP PSM (optional, read), see ``L2CAPPSM``.
        public let l2capPSM: BluetoothUUID
    }

    /// mdoc peripheral-server mode: the holder is the GATT server, the reader the client.
    /// No Ident characteristic is served in this mode.
    public static let peripheralServer = Characteristics(
        state: base(0x0000_0001), client2Server: base(0x0000_0002), server2Client: base(0x0000_0003),
        ident: nil, l2capPSM: base(0x0000_000A))

    /// mdoc central-client mode: the reader is the GATT server, the holder the client.
    public static let centralClient = Characteristics(
        state: base(0x0000_0005), client2Server: base(0x0000_0006), server2Client: base(0x0000_0007),
        ident: base(0x0000_0008), l2capPSM: base(0x0000_000B))

    /// `prefix-a123-48ce-896b-4c76973373e6`.
    static func base(_ prefix: UInt32) -> BluetoothUUID {
        BluetoothUUID(high: UInt64(prefix) << 32 | 0xA123_48CE, low: 0x896B_4C76_9733_73E6)
    }
}

/// The ISO 18013-5 BLE mode of a proximity session: who serves the GATT service.
public enum ProximityMode: String, Sendable, Hashable, CaseIterable {
    /// mdoc peripheral-server mode: the holder serves the service, the reader connects.
    case peripheralServer = "peripheral"
    /// mdoc central-client mode: the reader serves the service (with its Ident), the holder
    /// scans and connects.
    case centralClient = "central"
}

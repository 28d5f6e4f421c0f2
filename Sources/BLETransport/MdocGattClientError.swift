/// Why the holder's GATT client (mdoc central-client mode) could not reach the reader; each
/// case names the step. Messages carry BlueZ's error text, never message contents.
public enum MdocGattClientError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The adapter could not be found or powered on.
    case adapter(String, String)
    /// Scanning failed (not: nothing found yet; the scan goes on until cancelled).
    case discoveryFailed(String)
    case connectFailed(device: String, String)
    /// The reader's device does not serve the engagement's mdoc service.
    case serviceMissing(String)
    case characteristicMissing(name: String, uuid: String)
    case subscribeFailed(name: String, String)
    /// An operation that needs a connection was called without one.
    case notConnected

    public var description: String {
        switch self {
        case .adapter(let name, let e): return "Bluetooth adapter \(name) is not usable: \(e)"
        case .discoveryFailed(let e): return "LE scan for the reader failed: \(e)"
        case .connectFailed(let device, let e): return "connecting to the reader \(device) failed: \(e)"
        case .serviceMissing(let uuid): return "the reader does not serve the mdoc service \(uuid)"
        case .characteristicMissing(let name, let uuid):
            return "the reader's mdoc service has no \(name) characteristic (\(uuid))"
        case .subscribeFailed(let name, let e): return "subscribing to the reader's \(name) failed: \(e)"
        case .notConnected: return "not connected to a reader"
        }
    }
}

/// Why the GATT client could not reach the other side's service; each case names the step.
/// Messages carry BlueZ's error text, never message contents.
public enum MdocGattClientError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The adapter could not be found or powered on.
    case adapter(String, String)
    /// Scanning failed (not: nothing found yet).
    case discoveryFailed(String)
    /// No device advertised the service within the scan's bound.
    case notFound(service: String, seconds: Double)
    case connectFailed(device: String, String)
    /// The device does not serve the engagement's mdoc service.
    case serviceMissing(String)
    case characteristicMissing(name: String, uuid: String)
    case subscribeFailed(name: String, String)
    /// An operation that needs a connection was called without one.
    case notConnected

    public var description: String {
        switch self {
        case .adapter(let name, let e): return "Bluetooth adapter \(name) is not usable: \(e)"
        case .discoveryFailed(let e): return "LE scan failed: \(e)"
        case .notFound(let service, let seconds):
            let s = seconds == seconds.rounded() ? String(Int(seconds)) : String(seconds)
            return "no device advertising the mdoc service \(service) found within \(s) s"
        case .connectFailed(let device, let e): return "connecting to \(device) failed: \(e)"
        case .serviceMissing(let uuid): return "the device does not offer the mdoc service \(uuid)"
        case .characteristicMissing(let name, let uuid):
            return "the mdoc service has no \(name) characteristic (\(uuid))"
        case .subscribeFailed(let name, let e): return "subscribing to \(name) failed: \(e)"
        case .notConnected: return "not connected to the mdoc service"
        }
    }
}

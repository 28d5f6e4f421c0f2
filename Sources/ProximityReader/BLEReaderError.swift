import BLETransport

/// Why the reader's BLE transport failed; each case names the step.
public enum BLEReaderError: Error, Sendable, CustomStringConvertible {
    /// The engagement does not allow what was asked (no BLE, no such mode, a bad UUID).
    case engagement(String)
    /// Reaching the holder's service failed (the GATT client's error names the step:
    /// adapter, scan, connect, characteristics, subscribe).
    case link(String)
    /// Central-client mode: our mdoc service could not be registered or advertised.
    case serveFailed(String)
    /// Central-client mode: no holder subscribed and wrote State 0x01 (or opened our L2CAP
    /// channel) in time.
    case holderDidNotStart(seconds: Double)
    case writeFailed(what: String, String)
    case noResponse(seconds: Double)
    case chunkError(BLETransportError)
    case disconnected

    public var description: String {
        switch self {
        case .engagement(let e): return e
        case .link(let e): return e
        case .serveFailed(let e): return "serving the mdoc service failed: \(e)"
        case .holderDidNotStart(let seconds):
            return "no holder connected to our mdoc service and started the session within \(Self.format(seconds)) s "
                + "(is the holder scanning in central-client mode, on an adapter in range?)"
        case .writeFailed(let what, let e): return "writing \(what) failed: \(e)"
        case .noResponse(let seconds): return "no response from the holder within \(Self.format(seconds)) s"
        case .chunkError(let e): return "the holder sent a malformed message: \(e)"
        case .disconnected: return "the holder disconnected before responding"
        }
    }

    static func format(_ seconds: Double) -> String {
        seconds == seconds.rounded() ? String(Int(seconds)) : String(seconds)
    }
}

/// Why an L2CAP connection-oriented channel operation failed. Each case says what to do.
public enum L2CAPError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The kernel has no Bluetooth sockets (`socket(AF_BLUETOOTH)` failed with
    /// EAFNOSUPPORT/EPROTONOSUPPORT): use GATT instead.
    case bluetoothUnavailable
    /// Not a Bluetooth device address (`AA:BB:CC:DD:EE:FF`).
    case invalidAddress(String)
    /// A PSM outside the LE dynamic range 0x0080...0x00FF.
    case invalidPSM(UInt16)
    /// A system call failed: which one, and `errno`'s text.
    case system(call: String, errno: Int32, message: String)
    /// The channel was closed (by us, or the peer went away).
    case closed

    public var description: String {
        switch self {
        case .bluetoothUnavailable:
            return "this kernel has no Bluetooth sockets (AF_BLUETOOTH): L2CAP is not available, use GATT"
        case .invalidAddress(let a): return "\(a) is not a Bluetooth address (AA:BB:CC:DD:EE:FF)"
        case .invalidPSM(let psm): return "PSM \(psm) is outside the LE dynamic range 128...255"
        case .system(let call, let errno, let message): return "L2CAP \(call) failed: \(message) (errno \(errno))"
        case .closed: return "the L2CAP channel is closed"
        }
    }
}

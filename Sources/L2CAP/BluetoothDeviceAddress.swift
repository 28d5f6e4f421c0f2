internal import CBluetooth
import Glibc

/// A Bluetooth LE device address and its type, as L2CAP sockets take it.
public struct BluetoothDeviceAddress: Sendable, Hashable, CustomStringConvertible {
    /// LE public or LE random (a BlueZ `AddressType` of "public" or "random").
    public enum Kind: Sendable, Hashable {
        case lePublic
        case leRandom
    }

    /// Most significant byte first, as written: `AA:BB:...` is `[0xAA, 0xBB, ...]`.
    public let bytes: [UInt8]
    public let kind: Kind

    /// Reads `AA:BB:CC:DD:EE:FF`.
    public init(_ text: String, kind: Kind = .lePublic) throws(L2CAPError) {
        let parts = text.split(separator: ":", omittingEmptySubsequences: false)
        guard parts.count == 6 else { throw .invalidAddress(text) }
        var bytes: [UInt8] = []
        for part in parts {
            guard part.count == 2, let byte = UInt8(part, radix: 16) else { throw .invalidAddress(text) }
            bytes.append(byte)
        }
        self.bytes = bytes
        self.kind = kind
    }

    init(bytes: [UInt8], kind: Kind) {
        self.bytes = bytes
        self.kind = kind
    }

    /// Any local adapter.
    public static let any = try! BluetoothDeviceAddress("00:00:00:00:00:00")

    /// The public address of the local adapter `name` (`hci0`), which must be powered; read
    /// from the kernel (no bluetoothd needed).
    ///
    /// - Throws: ``L2CAPError/system(call:errno:message:)``: `ENODEV` for no such adapter,
    ///   `ENETDOWN` for an adapter that is not up.
    public static func ofAdapter(_ name: String) throws(L2CAPError) -> BluetoothDeviceAddress {
        // What libbluetooth's hci_devid and hci_devba do: HCIGETDEVINFO on a raw HCI socket.
        guard name.hasPrefix("hci"), let index = UInt16(name.dropFirst(3)) else {
            throw .system(call: "find the adapter \(name)", errno: ENODEV, message: String(cString: strerror(ENODEV)))
        }
        let fd = socket(AF_BLUETOOTH, Int32(SOCK_RAW.rawValue) | Int32(SOCK_CLOEXEC.rawValue), BTPROTO_HCI)
        guard fd >= 0 else { throw L2CAPSocket.failure("socket(BTPROTO_HCI)") }
        defer { close(fd) }
        var info = hci_dev_info()
        info.dev_id = index
        guard ioctl(fd, mdoc_hci_get_dev_info(), &info) == 0 else {
            throw L2CAPSocket.failure("HCIGETDEVINFO(\(name))")
        }
        guard info.flags & (1 << UInt32(HCI_UP)) != 0 else {
            throw .system(call: "HCIGETDEVINFO(\(name))", errno: ENETDOWN, message: String(cString: strerror(ENETDOWN)))
        }
        // bdaddr_t holds the address least significant byte first.
        return BluetoothDeviceAddress(bytes: withUnsafeBytes(of: info.bdaddr) { Array($0.reversed()) }, kind: .lePublic)
    }

    public var description: String {
        bytes.map { ($0 < 16 ? "0" : "") + String($0, radix: 16, uppercase: true) }.joined(separator: ":")
    }
}

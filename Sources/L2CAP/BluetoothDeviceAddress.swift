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

    public var description: String {
        bytes.map { ($0 < 16 ? "0" : "") + String($0, radix: 16, uppercase: true) }.joined(separator: ":")
    }
}

/// A Bluetooth UUID: a service or characteristic identifier, 128 bits.
///
/// One type for every layer: the 16-byte big-endian form an 18013-5 DeviceEngagement carries
/// in BleOptions (keys 10 and 11), and the text forms BlueZ uses on D-Bus: 8-4-4-4-12
/// hexadecimal (written in lowercase, read in either case), and the 16- and 32-bit short forms
/// (`"180d"`, `"0x180D"`, `"0000180d"`) expanded with the Bluetooth base UUID, as BlueZ does.
public struct BluetoothUUID: Sendable, Hashable, Comparable {
    /// The first eight bytes, big-endian.
    public let high: UInt64
    /// The last eight bytes, big-endian.
    public let low: UInt64

    /// The Bluetooth base UUID's last eight bytes (`-8000-00805f9b34fb`) and its high part
    /// below the 32-bit short form (`-0000-1000`).
    static let baseLow: UInt64 = 0x8000_0080_5F9B_34FB
    static let baseHighLow32: UInt64 = 0x0000_1000

    public init(high: UInt64, low: UInt64) {
        self.high = high
        self.low = low
    }

    /// Reads the 16-byte big-endian form (as in BleOptions). Nil unless exactly 16 bytes.
    public init?(bytes: some Collection<UInt8>) {
        guard bytes.count == 16 else { return nil }
        var high: UInt64 = 0
        var low: UInt64 = 0
        for (i, byte) in bytes.enumerated() {
            if i < 8 {
                high = high << 8 | UInt64(byte)
            } else {
                low = low << 8 | UInt64(byte)
            }
        }
        self.init(high: high, low: low)
    }

    /// Reads the 8-4-4-4-12 text form or a 16/32-bit short form (optionally `0x`), in either
    /// case. Nil for anything else (no braces, no `urn:uuid:` prefix).
    public init?(_ string: some StringProtocol) {
        var utf8 = Array(string.utf8)
        if utf8.count > 2, utf8[0] == UInt8(ascii: "0"), utf8[1] | 0x20 == UInt8(ascii: "x") { utf8.removeFirst(2) }
        if (1...8).contains(utf8.count) {
            var short: UInt64 = 0
            for c in utf8 {
                guard let nibble = Self.hexValue(c) else { return nil }
                short = short << 4 | UInt64(nibble)
            }
            self.init(high: short << 32 | Self.baseHighLow32, low: Self.baseLow)
            return
        }
        guard utf8.count == 36 else { return nil }
        var high: UInt64 = 0
        var low: UInt64 = 0
        var digits = 0
        for (i, c) in utf8.enumerated() {
            if i == 8 || i == 13 || i == 18 || i == 23 {
                guard c == UInt8(ascii: "-") else { return nil }
                continue
            }
            guard let nibble = Self.hexValue(c) else { return nil }
            if digits < 16 {
                high = high << 4 | UInt64(nibble)
            } else {
                low = low << 4 | UInt64(nibble)
            }
            digits += 1
        }
        self.init(high: high, low: low)
    }

    /// The 16-byte big-endian form, as it goes into BleOptions.
    public var bytes: [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(16)
        for shift in stride(from: 56, through: 0, by: -8) { out.append(UInt8(truncatingIfNeeded: high >> shift)) }
        for shift in stride(from: 56, through: 0, by: -8) { out.append(UInt8(truncatingIfNeeded: low >> shift)) }
        return out
    }

    /// The lowercase 8-4-4-4-12 form, as BlueZ writes it.
    public var rawValue: String { description }

    public static func < (lhs: BluetoothUUID, rhs: BluetoothUUID) -> Bool {
        (lhs.high, lhs.low) < (rhs.high, rhs.low)
    }

    private static func hexValue(_ c: UInt8) -> UInt8? {
        switch c {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): return c - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): return c - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): return c - UInt8(ascii: "A") + 10
        default: return nil
        }
    }
}

extension BluetoothUUID: CustomStringConvertible, LosslessStringConvertible, ExpressibleByStringLiteral {
    public var description: String {
        let hex = Array("0123456789abcdef".utf8)
        var out: [UInt8] = []
        out.reserveCapacity(36)
        for (i, byte) in bytes.enumerated() {
            if i == 4 || i == 6 || i == 8 || i == 10 { out.append(UInt8(ascii: "-")) }
            out.append(hex[Int(byte >> 4)])
            out.append(hex[Int(byte & 0x0F)])
        }
        return String(decoding: out, as: UTF8.self)
    }

    public init?(_ description: String) {
        self.init(description[...])
    }

    /// For literals in code; a malformed literal is a programming error and traps.
    public init(stringLiteral value: String) {
        guard let uuid = BluetoothUUID(value) else { preconditionFailure("malformed Bluetooth UUID literal") }
        self = uuid
    }
}

/// A 128-bit Bluetooth UUID: a service or characteristic identifier.
///
/// Two forms cross the boundary of this module: the 16-byte big-endian byte string the
/// DeviceEngagement carries in BleOptions (keys 10 and 11), and the 8-4-4-4-12 hexadecimal
/// text form BlueZ uses on D-Bus (`"00000001-a123-48ce-896b-4c76973373e6"`). Both map to
/// the same value; the text form is written in lowercase, as BlueZ writes it.
public struct BLEUUID: Sendable, Hashable {
    /// The first eight bytes, big-endian.
    public let high: UInt64
    /// The last eight bytes, big-endian.
    public let low: UInt64

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

    /// Reads the 8-4-4-4-12 text form, in either case. Nil for anything else (no braces, no
    /// `urn:uuid:` prefix, no 16- or 32-bit short forms).
    public init?(_ string: some StringProtocol) {
        let utf8 = Array(string.utf8)
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

    private static func hexValue(_ c: UInt8) -> UInt8? {
        switch c {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): return c - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): return c - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): return c - UInt8(ascii: "A") + 10
        default: return nil
        }
    }
}

extension BLEUUID: CustomStringConvertible, LosslessStringConvertible {
    /// The lowercase 8-4-4-4-12 form.
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
}

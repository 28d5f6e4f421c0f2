import Base64
import CBOR
import JOSE
import Zlib

/// A Status List (draft-ietf-oauth-status-list section 4): `bits` per entry (1, 2, 4 or 8),
/// entries packed from the least significant bit of each byte upwards (entry i takes bits
/// `[i*bits, (i+1)*bits)` counted from bit 0 of byte 0), the bytes zlib-compressed in `lst`.
public struct StatusList: Sendable, Equatable {
    public static let allowedBits: Set<Int> = [1, 2, 4, 8]

    /// Bits per entry.
    public let bits: Int
    /// The inflated bytes.
    public let bytes: [UInt8]

    /// A list of these bytes.
    public init(bits: Int, bytes: [UInt8]) throws(StatusListError) {
        guard Self.allowedBits.contains(bits) else { throw .unsupportedBits(bits) }
        self.bits = bits
        self.bytes = bytes
    }

    /// A list of `count` entries, all 0 (VALID) but `statuses` (index => value, each below 2^bits).
    public init(bits: Int, count: Int, statuses: [UInt64: UInt8]) throws(StatusListError) {
        guard Self.allowedBits.contains(bits) else { throw .unsupportedBits(bits) }
        guard count >= 0 else { throw .malformedToken("a list cannot hold \(count) entries") }
        var bytes = [UInt8](repeating: 0, count: (count * bits + 7) / 8)
        for (index, value) in statuses {
            guard index < UInt64(count) else { throw .indexOutOfRange(index: index, count: count) }
            guard Int(value) < 1 << bits else {
                throw .malformedToken("status \(value) does not fit in \(bits) bits")
            }
            let bit = Int(index) * bits
            bytes[bit / 8] |= value << UInt8(bit % 8)
        }
        try self.init(bits: bits, bytes: bytes)
    }

    /// The list of `lst` (zlib) inflated within `maximumBytes`.
    public init(bits: Int, compressed: [UInt8], maximumBytes: Int) throws(StatusListError) {
        guard Self.allowedBits.contains(bits) else { throw .unsupportedBits(bits) }
        let inflated: [UInt8]
        do throws(ZlibError) {
            inflated = try Zlib.inflate(compressed, maximumOutput: maximumBytes)
        } catch {
            throw .list(error)
        }
        try self.init(bits: bits, bytes: inflated)
    }

    /// The CBOR form `{"bits": uint, "lst": bstr, ? "aggregation_uri": tstr}` (section 4.3).
    public init(cbor value: CBOR, maximumBytes: Int) throws(StatusListError) {
        guard case .map = value, let bits = value["bits"]?.intValue, let lst = value["lst"]?.bytesValue else {
            throw .malformedToken("status_list is not a map with bits and a byte string lst")
        }
        try self.init(bits: bits, compressed: lst, maximumBytes: maximumBytes)
    }

    /// The JSON form `{"bits": number, "lst": base64url, "aggregation_uri"?}` (section 4.2).
    public init(json value: JSONValue, maximumBytes: Int) throws(StatusListError) {
        guard let bits = value["bits"]?.intValue, let text = value["lst"]?.stringValue else {
            throw .malformedToken("status_list is not an object with bits and a string lst")
        }
        guard let lst = Base64URL.decode(text) else { throw .malformedToken("status_list.lst is not base64url") }
        try self.init(bits: bits, compressed: lst, maximumBytes: maximumBytes)
    }

    /// How many entries the list holds.
    public var count: Int { bytes.count * 8 / bits }

    /// The raw value at `index`.
    public func value(at index: UInt64) throws(StatusListError) -> UInt8 {
        guard index < UInt64(count) else { throw .indexOutOfRange(index: index, count: count) }
        let bit = Int(index) * bits
        let mask = UInt8(truncatingIfNeeded: (1 << bits) - 1)
        return (bytes[bit / 8] >> UInt8(bit % 8)) & mask
    }

    /// The status at `index`.
    public func status(at index: UInt64) throws(StatusListError) -> CredentialStatus {
        CredentialStatus(rawValue: try value(at: index))
    }

    /// Every index whose value is not 0.
    public var nonZero: [UInt64: UInt8] {
        var found: [UInt64: UInt8] = [:]
        for (offset, byte) in bytes.enumerated() where byte != 0 {
            for slot in 0..<(8 / bits) {
                let index = UInt64(offset * (8 / bits) + slot)
                if let value = try? value(at: index), value != 0 { found[index] = value }
            }
        }
        return found
    }

    /// `lst`: the bytes compressed (zlib, level 9).
    public func compressed() throws(StatusListError) -> [UInt8] {
        do throws(ZlibError) {
            return try Zlib.deflate(bytes)
        } catch {
            throw .list(error)
        }
    }

    /// The CBOR form.
    public func cbor() throws(StatusListError) -> CBOR {
        .map([CBORMapEntry("bits", .unsigned(UInt64(bits))), CBORMapEntry("lst", .bytes(try compressed()))])
    }

    /// The JSON form.
    public func json() throws(StatusListError) -> JSONValue {
        ["bits": .number(Double(bits)), "lst": .string(Base64URL.encode(try compressed()))]
    }
}

import CLibCBOR

extension CBOR {
    /// Encodes with preferred serialization: shortest argument lengths, definite lengths,
    /// floats in the shortest form that keeps the value, maps in their stored order. Tag-24
    /// items are written exactly as they were received (headers included).
    public func encoded() -> [UInt8] {
        var encoder = CBOREncoder()
        // Sized first: a 60 kB portrait is then copied once, not again at every doubling.
        encoder.reserve(encodedCount)
        encoder.encode(self)
        return encoder.output
    }

    /// The length of ``encoded()``, computed without encoding.
    var encodedCount: Int {
        let head = CBOR.headCount
        switch self {
        case .unsigned(let u): return head(u)
        case .negative(let n): return head(n)
        case .bytes(let b): return head(UInt64(b.count)) + b.count
        case .text(let s): return head(UInt64(s.utf8.count)) + s.utf8.count
        case .array(let items): return items.reduce(head(UInt64(items.count))) { $0 + $1.encodedCount }
        case .map(let entries):
            return entries.reduce(head(UInt64(entries.count))) { $0 + $1.key.encodedCount + $1.value.encodedCount }
        case .tagged(let tag, let inner): return head(tag) + inner.encodedCount
        case .embedded(let e): return e.taggedCount
        case .simple(let v): return v < 24 ? 1 : 2
        case .bool, .null, .undefined: return 1
        case .float(let d):
            let single = Float(d)
            if d.isNaN || (Double(single) == d && Float(Float16(single)) == single) { return 3 }
            return Double(single) == d ? 5 : 9
        }
    }
}

/// Writes CBOR heads with libcbor's encoders and appends payloads.
struct CBOREncoder {
    private(set) var output: [UInt8] = []

    mutating func reserve(_ count: Int) { output.reserveCapacity(count) }

    typealias HeadWriter = (UInt64, UnsafeMutablePointer<UInt8>, Int) -> Int

    mutating func encodeHead(_ argument: UInt64, _ writer: HeadWriter) { head(argument, writer) }

    private mutating func head(_ argument: UInt64, _ writer: HeadWriter) {
        withUnsafeTemporaryAllocation(of: UInt8.self, capacity: 9) { buffer in
            let n = writer(argument, buffer.baseAddress!, 9)
            output.append(contentsOf: UnsafeBufferPointer(rebasing: buffer[0..<n]))
        }
    }

    mutating func encode(_ value: CBOR) {
        switch value {
        case .unsigned(let u):
            head(u) { cbor_encode_uint($0, $1, $2) }
        case .negative(let n):
            head(n) { cbor_encode_negint($0, $1, $2) }
        case .bytes(let b):
            head(UInt64(b.count)) { cbor_encode_bytestring_start(Int($0), $1, $2) }
            output.append(contentsOf: b)
        case .text(let s):
            var utf8 = s.utf8
            let count = utf8.count
            head(UInt64(count)) { cbor_encode_string_start(Int($0), $1, $2) }
            if utf8.withContiguousStorageIfAvailable({ output.append(contentsOf: $0) }) == nil {
                utf8 = s.utf8
                output.append(contentsOf: utf8)
            }
        case .array(let items):
            head(UInt64(items.count)) { cbor_encode_array_start(Int($0), $1, $2) }
            for item in items { encode(item) }
        case .map(let entries):
            head(UInt64(entries.count)) { cbor_encode_map_start(Int($0), $1, $2) }
            for entry in entries {
                encode(entry.key)
                encode(entry.value)
            }
        case .tagged(let tag, let inner):
            head(tag) { cbor_encode_tag($0, $1, $2) }
            encode(inner)
        case .embedded(let e):
            e.encode(into: &self)
        case .simple(let v):
            if v < 24 {
                output.append(0xE0 | v)
            } else {
                output.append(contentsOf: [0xF8, v])
            }
        case .bool(let b):
            output.append(b ? 0xF5 : 0xF4)
        case .null:
            output.append(0xF6)
        case .undefined:
            output.append(0xF7)
        case .float(let d):
            encodeFloat(d)
        }
    }

    private mutating func encodeFloat(_ d: Double) {
        if d.isNaN {
            output.append(contentsOf: [0xF9, 0x7E, 0x00])
            return
        }
        let single = Float(d)
        if Double(single) == d {
            if Float(Float16(single)) == single {
                let bits = Float16(single).bitPattern
                output.append(contentsOf: [0xF9, UInt8(bits >> 8), UInt8(bits & 0xFF)])
            } else {
                head(UInt64(single.bitPattern)) { v, p, n in cbor_encode_single(Float(bitPattern: UInt32(v)), p, n) }
            }
        } else {
            head(d.bitPattern) { v, p, n in cbor_encode_double(Double(bitPattern: v), p, n) }
        }
    }
}

extension CBOR {
    /// Length of a head with this argument in preferred serialization.
    static func headCount(_ argument: UInt64) -> Int {
        switch argument {
        case ..<24: return 1
        case ..<0x100: return 2
        case ..<0x1_0000: return 3
        case ..<0x1_0000_0000: return 5
        default: return 9
        }
    }

    /// An array whose members are already encoded: their bytes are spliced in unchanged.
    /// Used where the standard signs a structure that embeds bytes as they travelled (the
    /// SessionTranscript inside ReaderAuthentication and DeviceAuthentication).
    public static func encodedArray(_ members: [[UInt8]]) -> [UInt8] {
        var encoder = CBOREncoder()
        encoder.arrayHead(members.count)
        var out = encoder.output
        for m in members { out.append(contentsOf: m) }
        return out
    }

    /// `#6.24(bstr)` around already-encoded CBOR.
    public static func taggedBytes(_ encoded: [UInt8]) -> [UInt8] {
        CBOR.tagged(24, .bytes(encoded)).encoded()
    }
}

extension CBOREncoder {
    mutating func arrayHead(_ count: Int) {
        encodeHead(UInt64(count)) { cbor_encode_array_start(Int($0), $1, $2) }
    }

    /// `d8 18` and the preferred header of a byte string of `count` bytes.
    mutating func encodeEmbeddedHeader(_ count: Int) {
        encodeHead(24) { cbor_encode_tag($0, $1, $2) }
        encodeHead(UInt64(count)) { cbor_encode_bytestring_start(Int($0), $1, $2) }
    }

    mutating func append(_ bytes: [UInt8]) { output.append(contentsOf: bytes) }
}

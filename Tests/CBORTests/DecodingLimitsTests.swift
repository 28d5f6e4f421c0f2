import CBOR
import TestSupport
import Testing

/// Hostile or broken input is refused with an error that says what was wrong.
struct DecodingLimitsTests {
    @Test func refusesNestingDeeperThanTheLimit() {
        let deep = [UInt8](repeating: 0x81, count: 40) + [0x00]
        #expect(throws: CBORError.depthLimitExceeded(limit: 32)) { try CBOR.decode(deep) }
        let limits = CBORDecodingLimits(maxDepth: 41, maxItems: 1000, maxBytes: 1000)
        #expect(throws: Never.self) { try CBOR.decode(deep, limits: limits) }
    }

    @Test func refusesNestingThroughTag24AgainstTheSameLimit() {
        // Each level is a tag-24 byte string holding the next level.
        var item: [UInt8] = [0x00]
        for _ in 0..<40 {
            item = CBOR.embedded(
                try! EmbeddedCBOR(bytes: item, limits: .init(maxDepth: 200, maxItems: 1000, maxBytes: 10000))
            ).encoded()
        }
        #expect(throws: CBORError.depthLimitExceeded(limit: 32)) { try CBOR.decode(item) }
    }

    @Test func refusesMoreItemsThanTheLimit() {
        let many = [UInt8](hex: "98ff") + [UInt8](repeating: 0x01, count: 255)
        let limits = CBORDecodingLimits(maxDepth: 8, maxItems: 100, maxBytes: 1000)
        #expect(throws: CBORError.itemLimitExceeded(limit: 100)) { try CBOR.decode(many, limits: limits) }
    }

    @Test func refusesInputLargerThanTheLimit() {
        let limits = CBORDecodingLimits(maxDepth: 8, maxItems: 100, maxBytes: 10)
        #expect(throws: CBORError.sizeLimitExceeded(size: 13, limit: 10)) {
            try CBOR.decode([0x4B] + [UInt8](repeating: 0, count: 12), limits: limits)
        }
    }

    @Test func aDeclaredLengthLargerThanTheInputIsRefusedWithoutAllocating() {
        // An array declaring 2^32-1 members, a map declaring 2^64-1 entries, a byte string
        // declaring 2^63 bytes: each in a few bytes of input.
        #expect(throws: CBORError.declaredLengthExceedsInput(offset: 0, declared: 0xFFFF_FFFF, available: 1)) {
            try CBOR.decode([UInt8](hex: "9affffffff01"))
        }
        #expect(throws: CBORError.declaredLengthExceedsInput(offset: 0, declared: UInt64.max, available: 2)) {
            try CBOR.decode([UInt8](hex: "bbffffffffffffffff0102"))
        }
        // Found by the fuzzer: a count of 2^63 + 1 inside a map once overflowed.
        #expect(throws: CBORError.declaredLengthExceedsInput(offset: 1, declared: 0x8000_0000_0000_0001, available: 1))
        {
            try CBOR.decode([UInt8](hex: "a1bb800000000000000101"))
        }
        #expect(throws: CBORError.truncated(offset: 0)) { try CBOR.decode([UInt8](hex: "5b800000000000000001")) }
    }

    @Test func refusesTruncatedAndTrailingInput() {
        #expect(throws: CBORError.truncated(offset: 0)) { try CBOR.decode([]) }
        #expect(throws: CBORError.truncated(offset: 3)) { try CBOR.decode([UInt8](hex: "83010261")) }
        #expect(throws: CBORError.truncated(offset: 1)) { try CBOR.decode([UInt8](hex: "816261")) }
        #expect(throws: CBORError.declaredLengthExceedsInput(offset: 0, declared: 3, available: 2)) {
            try CBOR.decode([UInt8](hex: "830102"))
        }
        #expect(throws: CBORError.trailingBytes(offset: 1)) { try CBOR.decode([UInt8](hex: "0000")) }
    }

    @Test func refusesMalformedItems() {
        for hex in ["1c", "ff", "5f01ff", "7f4100ff", "bf01ff", "f818", "fc", "9f5fff", "c0ff"] {
            #expect(throws: CBORError.self, "\(hex)") { try CBOR.decode([UInt8](hex: hex)) }
        }
    }

    @Test func refusesInvalidUTF8AndDuplicateKeys() {
        #expect(throws: CBORError.invalidUTF8(offset: 0)) { try CBOR.decode([UInt8](hex: "62c328")) }
        #expect(throws: CBORError.duplicateMapKey(offset: 0)) { try CBOR.decode([UInt8](hex: "a201020103")) }
    }

    /// Small maps (up to 8 entries) compare their keys with each other, larger ones use a set:
    /// both find a duplicate wherever it is, in any encoding of the same value, and only then.
    @Test func findsDuplicateKeysInSmallAndLargeMaps() throws {
        func map(_ keys: [String], definite: Bool = true) -> [UInt8] {
            let head = definite ? String(0xA0 + keys.count, radix: 16) : "bf"
            return [UInt8](hex: head + keys.map { $0 + "00" }.joined() + (definite ? "" : "ff"))
        }
        let eight = ["01", "02", "03", "6161", "04", "05", "06", "07"]
        let nine = eight + ["f5"]
        let sixteen = (1...16).map { ($0 < 16 ? "0" : "") + String($0, radix: 16) }
        for keys in [eight, nine, ["6131", "01"]] {
            _ = try CBOR.decode(map(keys))
            _ = try CBOR.decode(map(keys, definite: false))
        }
        let sixteenMap = [UInt8](hex: "b0" + sixteen.map { $0 + "00" }.joined())
        #expect(try CBOR.decode(sixteenMap).mapEntries?.count == 16)
        var duplicates = [eight, nine].map { Array($0.dropLast()) + ["1801"] }  // 1 again, longer head
        duplicates.append(["6162"] + Array(nine.dropFirst().dropLast()) + ["6162"])  // text, first and last
        for keys in duplicates {
            #expect(throws: CBORError.duplicateMapKey(offset: 0), "\(keys)") { try CBOR.decode(map(keys)) }
            #expect(throws: CBORError.duplicateMapKey(offset: 0), "\(keys)") {
                try CBOR.decode(map(keys, definite: false))
            }
        }
    }

    @Test func refusesTag24ThatDoesNotHoldOneItem() {
        #expect(throws: CBORError.self) { try CBOR.decode([UInt8](hex: "d8180a")) }  // not a bstr
        #expect(throws: CBORError.self) { try CBOR.decode([UInt8](hex: "d818420101")) }  // two items
        #expect(throws: CBORError.self) { try CBOR.decode([UInt8](hex: "d8184182")) }  // truncated inside
    }
}

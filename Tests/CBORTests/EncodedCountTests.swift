import Testing

@testable import CBOR

/// The size pass that lets the encoder allocate once agrees with the encoder, byte for byte.
struct EncodedCountTests {
    @Test func theSizePassMatchesTheEncodingOfEveryExample() {
        for (hex, value) in RFC8949ExamplesTests.preferred {
            #expect(value.encodedCount == value.encoded().count, "\(hex)")
        }
    }

    @Test func theSizePassMatchesNestedAndLargeValues() {
        let portrait = CBOR.bytes([UInt8](repeating: 7, count: 70_000))
        let values: [CBOR] = [
            ["docType": "org.iso.18013.5.1.mDL", "portrait": portrait, "list": [1, -300, 70_000, .float(0.1)]],
            .embedded(EmbeddedCBOR(["a": portrait])), .tagged(1004, "2024-01-01"),
            .text(String(repeating: "x", count: 300)), .array((0..<300).map { .unsigned(UInt64($0)) }),
            .unsigned(1 << 40), .negative(1 << 20), .float(.nan), .float(1e300), .simple(40),
        ]
        for value in values {
            #expect(value.encodedCount == value.encoded().count)
        }
    }
}

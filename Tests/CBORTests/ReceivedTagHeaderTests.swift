import CBOR
import TestSupport
import Testing

/// A tag-24 item keeps its whole encoding as received, tag and byte-string headers included.
struct ReceivedTagHeaderTests {
    // #6.24(h'a1616101'), {"a": 1}: preferred, with a 2-byte bstr length, with a 3-byte tag head.
    static let preferred = [UInt8](hex: "d81844a1616101")
    static let longLength = [UInt8](hex: "d818590004a1616101")
    static let longTag = [UInt8](hex: "d9001844a1616101")

    @Test(arguments: [longLength, longTag, preferred])
    func taggedEncodingIsTheReceivedItem(wire: [UInt8]) throws {
        let decoded = try CBOR.decode(wire)
        let embedded = try #require(decoded.embeddedValue)
        #expect(embedded.bytes.hex == "a1616101")
        #expect(embedded.taggedEncoding == wire)
        #expect(decoded.encoded() == wire)
        #expect(CBOR.array([decoded]).encoded() == [0x81] + wire)
    }

    @Test func aValueBuiltHereUsesThePreferredEncoding() {
        #expect(EmbeddedCBOR(["a": 1]).taggedEncoding == Self.preferred)
        #expect(CBOR.embedded(EmbeddedCBOR(["a": 1])).encoded() == Self.preferred)
    }

    @Test func anIndefiniteByteStringIsKeptAsReceived() throws {
        let wire = [UInt8](hex: "d8185f42a161426101ff")
        let embedded = try #require(try CBOR.decode(wire).embeddedValue)
        #expect(embedded.value == ["a": 1])
        #expect(embedded.taggedEncoding == wire)
    }

    @Test func nestedItemsKeepTheirOwnSpans() throws {
        // [#6.24(long header), 7, #6.24(preferred)] in a map value.
        let wire = [UInt8](hex: "a1617883") + Self.longLength + [0x07] + Self.preferred
        let items = try #require(try CBOR.decode(wire)["x"]?.arrayValue)
        #expect(items[0].embeddedValue?.taggedEncoding == Self.longLength)
        #expect(items[2].embeddedValue?.taggedEncoding == Self.preferred)
        #expect(try CBOR.decode(wire).encoded() == wire)
    }
}

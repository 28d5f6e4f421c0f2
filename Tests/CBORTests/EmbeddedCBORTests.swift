import CBOR
import TestSupport
import Testing

/// Tag 24 keeps the bytes that travelled, even when they are not in preferred form.
struct EmbeddedCBORTests {
    @Test func keepsNonPreferredInnerBytesThroughDecodeAndEncode() throws {
        // #6.24(h'1b0000000000000001'): the inner integer 1 written with an 8-byte head.
        let wire = [UInt8](hex: "d818491b0000000000000001")
        let decoded = try CBOR.decode(wire)
        let embedded = try #require(decoded.embeddedValue)
        #expect(embedded.value == 1)
        #expect(embedded.bytes.hex == "1b0000000000000001")
        #expect(decoded.encoded() == wire)
        #expect(embedded.taggedEncoding == wire)
    }

    @Test func wrapsWhatWeProduceOnce() {
        let value: CBOR = ["docType": "org.iso.18013.5.1.mDL"]
        let e = EmbeddedCBOR(value)
        #expect(e.bytes == value.encoded())
        #expect(e.taggedEncoding.prefix(2) == [0xD8, 0x18])
    }

    @Test func everyAnnexDStructureReencodesToItsOwnBytes() throws {
        // The standard's examples are in preferred serialization: decoding and re-encoding
        // must give the same bytes, and every tag-24 item inside keeps its bytes.
        for key in [
            "DeviceEngagement", "SessionEstablishment", "DeviceRequest", "DeviceResponse", "SessionData_DeviceResponse",
            "IssuerSigned", "MobileSecurityObjectBytes", "SessionTranscriptBytes", "DeviceAuthenticationBytes",
            "ReaderAuthenticationBytes", "DrivingPrivileges_D21", "SessionData_Termination",
        ] {
            let bytes = Vectors.annexD(key)
            let value = try CBOR.decode(bytes)
            #expect(value.encoded() == bytes, "\(key)")
        }
    }
}

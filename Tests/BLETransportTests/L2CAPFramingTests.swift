import BLETestSupport
import BLETransport
import Testing

struct L2CAPFramingTests {
    @Test func aFrameIsAFourByteBigEndianLengthThenTheMessage() throws {
        #expect(try L2CAPFraming.frame([0xAA, 0xBB]) == [0, 0, 0, 2, 0xAA, 0xBB])
        #expect(try L2CAPFraming.frame([]) == [0, 0, 0, 0])
    }

    @Test func belowSixtyFourKiBTheFrameEqualsSpruceIDs() throws {
        // SpruceID: two zero bytes, then a 2-byte big-endian length.
        let message = [UInt8](repeating: 1, count: 65_535)
        #expect(try L2CAPFraming.frame(message).prefix(4) == [0x00, 0x00, 0xFF, 0xFF])
    }

    @Test func overSixtyFourKiBTheLengthUsesAllFourBytes() throws {
        let message = [UInt8](repeating: 1, count: 100_000)  // 0x0186A0
        #expect(try L2CAPFraming.frame(message).prefix(4) == [0x00, 0x01, 0x86, 0xA0])
    }

    @Test func aHundredKilobyteMessageFedInRandomPiecesRoundTrips() throws {
        var rng = SeededGenerator(seed: 0x12CA9)
        let messages = [rng.bytes(100_000), [], rng.bytes(3), rng.bytes(65_536)]
        let stream = try messages.flatMap { try L2CAPFraming.frame($0) }
        for round in 0..<20 {
            var decoder = L2CAPMessageDecoder(maximumMessageSize: MessageSizeLimit.request)
            var received: [[UInt8]] = []
            var offset = 0
            while offset < stream.count {
                // Pieces from 1 byte to a little over an L2CAP SDU, so headers split too.
                let size = round == 0 ? 1 : Int.random(in: 1...70_000, using: &rng)
                let end = min(stream.count, offset + size)
                received += try decoder.append(stream[offset..<end])
                offset = end
            }
            #expect(received == messages)
            #expect(!decoder.isMidMessage)
        }
    }

    @Test func aDeclaredLengthOverTheLimitIsRefusedAtTheHeader() throws {
        var decoder = L2CAPMessageDecoder(maximumMessageSize: 1000)
        // The header itself arrives split.
        #expect(try decoder.append([0xFF, 0xFF]) == [])
        #expect(throws: BLETransportError.messageTooLarge(size: 0xFFFF_FFFF, limit: 1000)) {
            try decoder.append([0xFF, 0xFF, 0x00, 0x00])
        }
        #expect(!decoder.isMidMessage)
    }

    @Test func theDefaultLimitIs256KiB() throws {
        var decoder = L2CAPMessageDecoder(maximumMessageSize: MessageSizeLimit.request)
        #expect(try decoder.append([0x00, 0x04, 0x00, 0x00]) == [])  // 262 144: accepted
        decoder.reset()
        #expect(throws: BLETransportError.messageTooLarge(size: 262_145, limit: 262_144)) {
            try decoder.append([0x00, 0x04, 0x00, 0x01])
        }
    }

    @Test func severalFramesInOnePieceAllComeOut() throws {
        var decoder = L2CAPMessageDecoder(maximumMessageSize: MessageSizeLimit.request)
        let stream = try L2CAPFraming.frame([1]) + L2CAPFraming.frame([2, 2]) + L2CAPFraming.frame([3, 3, 3])
        #expect(try decoder.append(stream + [0, 0]) == [[1], [2, 2], [3, 3, 3]])
        #expect(decoder.isMidMessage)
    }
}

struct L2CAPPSMTests {
    @Test func fourBytesBigEndianAsMultipazWritesIt() {
        #expect(L2CAPPSM.parse([0x00, 0x00, 0x00, 0xC0]) == 0xC0)
        #expect(L2CAPPSM.parse([0x00, 0x00, 0x00, 0x80]) == 0x80)
        #expect(L2CAPPSM.parse([0x00, 0x00, 0x00, 0xFF]) == 0xFF)
    }

    @Test func twoBytesLittleEndian() {
        #expect(L2CAPPSM.parse([0xC1, 0x00]) == 0xC1)
        #expect(L2CAPPSM.parse([0x80, 0x00]) == 0x80)
    }

    @Test(arguments: [
        [UInt8](), [0xC1], [0x00, 0xC1], [0xC1, 0x00, 0x00], [0xC1, 0x00, 0x00, 0x00], [0x00, 0x00, 0x00, 0x7F],
        [0x00, 0x00, 0x01, 0x00], [0x00, 0x00, 0x00, 0x00], [0x7F, 0x00], [0x00, 0x01], [0x00, 0x00, 0x00, 0x00, 0xC1],
    ])
    func anythingElseIsRefused(_ bytes: [UInt8]) {
        #expect(L2CAPPSM.parse(bytes) == nil)
    }

    @Test func whatWeServeIsWhatMultipazReads() {
        #expect(L2CAPPSM.encode(0xC5) == [0x00, 0x00, 0x00, 0xC5])
        for psm in L2CAPPSM.dynamicRange { #expect(L2CAPPSM.parse(L2CAPPSM.encode(psm)) == psm) }
    }
}

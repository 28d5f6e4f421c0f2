import BLETestSupport
import BLETransport
import Testing

/// Fragmenting then assembling gives back the message, for every MTU that matters.
struct FragmentationRoundTripTests {
    /// 23: ATT minimum; 185: iOS; 247: Android / LE data length; 512 and 515: around the
    /// 512-byte cap; 517: what BlueZ negotiates.
    static let mtus = [23, 185, 247, 512, 515, 517]
    static let sizes = [0, 1, 508, 509, 510, 100_000]

    static func check(_ message: [UInt8], mtu: Int) throws {
        let fragmenter = try MessageFragmenter(mtu: mtu)
        let chunks = fragmenter.chunks(of: message)
        let cap = min(512, mtu - 3)
        #expect(chunks.count == fragmenter.chunkCount(forMessageSize: message.count))
        #expect(chunks.allSatisfy { $0.count <= cap && !$0.isEmpty })
        // Every chunk but the last is full and says "more"; the last says "last".
        #expect(chunks.dropLast().allSatisfy { $0.count == cap && $0[0] == 0x01 })
        #expect(chunks.last?[0] == 0x00)

        var assembler = MessageAssembler(maximumMessageSize: MessageSizeLimit.request)
        var out: [[UInt8]] = []
        for chunk in chunks {
            if let m = try assembler.append(chunk) { out.append(m) }
        }
        #expect(out == [message])
        #expect(!assembler.isMidMessage)
    }

    @Test(arguments: mtus, sizes)
    func messagesRoundTrip(mtu: Int, size: Int) throws {
        var rng = SeededGenerator(seed: UInt64(mtu * 1_000_003 + size))
        try Self.check(rng.bytes(size), mtu: mtu)
    }

    @Test(arguments: mtus)
    func randomSizesRoundTrip(mtu: Int) throws {
        var rng = SeededGenerator(seed: 0x18013 &+ UInt64(mtu))
        for _ in 0..<200 {
            let size = Int.random(in: 0...3000, using: &rng)
            try Self.check(rng.bytes(size), mtu: mtu)
        }
    }

    @Test func chunksNeverExceed512EvenAtMTU517() throws {
        // TESTING.md: BlueZ negotiates 517, but a 514-byte notification arrives cut to 512.
        let fragmenter = try MessageFragmenter(mtu: 517)
        #expect(fragmenter.chunkSize == 512)
        #expect(fragmenter.payloadSize == 511)
        #expect(try MessageFragmenter(mtu: 515).chunkSize == 512)
        #expect(try MessageFragmenter(mtu: 512).chunkSize == 509)
        #expect(try MessageFragmenter(mtu: 23).chunkSize == 20)
        #expect(fragmenter.chunks(of: [UInt8](repeating: 7, count: 100_000)).map(\.count).max() == 512)
    }

    @Test func theChunkCountAtTheBoundary() throws {
        // MTU 512: 509-byte chunks carry 508 message bytes.
        let fragmenter = try MessageFragmenter(mtu: 512)
        #expect(fragmenter.chunks(of: [UInt8](repeating: 1, count: 508)).count == 1)
        #expect(fragmenter.chunks(of: [UInt8](repeating: 1, count: 509)).map(\.count) == [509, 2])
        #expect(fragmenter.chunks(of: [UInt8](repeating: 1, count: 1016)).count == 2)
        #expect(fragmenter.chunks(of: [UInt8](repeating: 1, count: 1017)).count == 3)
    }

    @Test func anEmptyMessageIsOneLastChunk() throws {
        #expect(try MessageFragmenter(mtu: 23).chunks(of: []) == [[0x00]])
    }

    @Test func headersAreMoreThenLast() throws {
        let chunks = try MessageFragmenter(mtu: 23).chunks(of: [UInt8](0..<45))
        #expect(chunks.map { $0[0] } == [0x01, 0x01, 0x00])
        #expect(chunks[0] == [0x01] + [UInt8](0..<19))
        #expect(chunks[1] == [0x01] + [UInt8](19..<38))
        #expect(chunks[2] == [0x00] + [UInt8](38..<45))
    }

    @Test(arguments: [Int.min, -1, 0, 3, 22])
    func anMTUBelow23IsRefused(_ mtu: Int) {
        #expect(throws: BLETransportError.invalidMTU(mtu)) { try MessageFragmenter(mtu: mtu) }
    }
}

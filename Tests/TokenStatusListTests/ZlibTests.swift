import Testing
import Zlib

/// The zlib wrapper: round trips, and an inflate that stops at its cap.
struct ZlibTests {
    @Test("deflate then inflate gives the bytes back")
    func roundTrip() throws {
        let input = (0..<50_000).map { UInt8(truncatingIfNeeded: $0 * 7 / 3) }
        let compressed = try Zlib.deflate(input)
        #expect(compressed.count < input.count)
        #expect(try Zlib.inflate(compressed, maximumOutput: input.count) == input)
        #expect(try Zlib.inflate(try Zlib.deflate([]), maximumOutput: 0) == [])
    }

    @Test("a deflate bomb stops at the cap")
    func bomb() throws {
        // 64 MiB of zeros deflate to about 64 KiB.
        let bomb = try Zlib.deflate([UInt8](repeating: 0, count: 64 << 20))
        #expect(bomb.count < 128 << 10)
        #expect(throws: ZlibError.tooLarge(limit: 1 << 20)) { try Zlib.inflate(bomb, maximumOutput: 1 << 20) }
        // Exactly at the cap is accepted.
        let exact = try Zlib.deflate([UInt8](repeating: 0, count: 1 << 20))
        #expect(try Zlib.inflate(exact, maximumOutput: 1 << 20).count == 1 << 20)
    }

    @Test("corrupt, truncated and trailing input is refused")
    func malformed() throws {
        let good = try Zlib.deflate(Array("status list".utf8))
        #expect(throws: ZlibError.truncated) { try Zlib.inflate(Array(good.dropLast(3)), maximumOutput: 100) }
        #expect(throws: ZlibError.truncated) { try Zlib.inflate([], maximumOutput: 100) }
        #expect(throws: ZlibError.trailingBytes) { try Zlib.inflate(good + [0], maximumOutput: 100) }
        #expect {
            try Zlib.inflate([0x78, 0xda, 0xff, 0xff, 0xff], maximumOutput: 100)
        } throws: { error in
            if case .corrupt = error as? ZlibError { return true }
            return false
        }
        // A raw deflate stream without the zlib header is not a zlib stream.
        #expect(throws: ZlibError.self) { try Zlib.inflate(Array(good.dropFirst(2)), maximumOutput: 100) }
    }
}

import BLETransport
import Testing

/// A hostile or broken reader gets typed errors, and cannot make the holder buffer without
/// bound.
struct MessageAssemblerTests {
    @Test func anEmptyChunkIsRefused() {
        var assembler = MessageAssembler(maximumMessageSize: MessageSizeLimit.request)
        #expect(throws: BLETransportError.emptyChunk) { try assembler.append([]) }
    }

    @Test(arguments: [UInt8(0x02), 0x03, 0x80, 0xFF])
    func anUnknownHeaderIsRefused(_ header: UInt8) {
        var assembler = MessageAssembler(maximumMessageSize: MessageSizeLimit.request)
        #expect(throws: BLETransportError.unknownChunkHeader(header)) { try assembler.append([header, 1, 2]) }
    }

    @Test func aMessageOverTheLimitIsRefusedBeforeItIsBuffered() throws {
        var assembler = MessageAssembler(maximumMessageSize: 1000)
        for _ in 0..<9 { #expect(try assembler.append([0x01] + [UInt8](repeating: 0xAA, count: 100)) == nil) }
        #expect(assembler.bufferedByteCount == 900)
        #expect(throws: BLETransportError.messageTooLarge(size: 1001, limit: 1000)) {
            try assembler.append([0x01] + [UInt8](repeating: 0xAA, count: 101))
        }
        #expect(assembler.bufferedByteCount == 0)
    }

    @Test func aMessageOfExactlyTheLimitIsAccepted() throws {
        var assembler = MessageAssembler(maximumMessageSize: 1000)
        #expect(try assembler.append([0x01] + [UInt8](repeating: 1, count: 500)) == nil)
        #expect(try assembler.append([0x00] + [UInt8](repeating: 2, count: 500))?.count == 1000)
    }

    @Test func theDefaultLimitIs256KiB() throws {
        var assembler = MessageAssembler(maximumMessageSize: MessageSizeLimit.request)
        #expect(assembler.maximumMessageSize == 262_144)
        let chunks = try MessageFragmenter(mtu: 517).chunks(of: [UInt8](repeating: 3, count: 262_145))
        for chunk in chunks.dropLast() { #expect(try assembler.append(chunk) == nil) }
        // The last chunk tips it over.
        #expect(throws: BLETransportError.messageTooLarge(size: 262_145, limit: 262_144)) {
            try assembler.append(chunks[chunks.count - 1])
        }
        #expect(assembler.bufferedByteCount == 0)
    }

    @Test func theAssemblerResetsAfterAnError() throws {
        var assembler = MessageAssembler(maximumMessageSize: MessageSizeLimit.request)
        #expect(try assembler.append([0x01, 1, 2, 3]) == nil)
        #expect(throws: BLETransportError.unknownChunkHeader(0x07)) { try assembler.append([0x07, 4]) }
        #expect(!assembler.isMidMessage)
        // The next message starts clean: the bytes before the error are gone.
        #expect(try assembler.append([0x00, 9]) == [9])
    }

    @Test func oneByteLastChunkIsAnEmptyMessage() throws {
        var assembler = MessageAssembler(maximumMessageSize: MessageSizeLimit.request)
        #expect(try assembler.append([0x00]) == [])
    }
}

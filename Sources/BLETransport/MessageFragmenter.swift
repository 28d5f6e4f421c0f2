/// Splits a message into GATT chunks (ISO 18013-5 8.3.3.1.1.6): each chunk is one header
/// byte, 0x01 when more chunks follow and 0x00 for the last, then payload.
///
/// A chunk, header included, is at most ``chunkSize`` = min(512, ATT_MTU − 3) bytes: an ATT
/// notification or write carries MTU − 3 bytes of value, and no attribute value may exceed
/// 512 bytes. With the MTU of 517 BlueZ negotiates, a 514-byte chunk would arrive cut to 512,
/// so chunks stop at 512.
public struct MessageFragmenter: Sendable, Hashable {
    /// The smallest ATT MTU (ATT_MTU default for LE).
    public static let minimumMTU = 23
    /// The largest attribute value ATT allows.
    public static let maximumChunkSize = 512

    /// The ATT MTU of the connection.
    public let mtu: Int
    /// Bytes per chunk, header included.
    public let chunkSize: Int
    /// Message bytes per chunk (``chunkSize`` − 1).
    public var payloadSize: Int { chunkSize - 1 }

    /// - Throws: ``BLETransportError/invalidMTU(_:)`` below 23.
    public init(mtu: Int) throws(BLETransportError) {
        guard mtu >= Self.minimumMTU else { throw .invalidMTU(mtu) }
        self.mtu = mtu
        self.chunkSize = min(Self.maximumChunkSize, mtu - 3)
    }

    /// How many chunks a message of `size` bytes takes: an empty message is one chunk.
    public func chunkCount(forMessageSize size: Int) -> Int {
        max(1, (size + payloadSize - 1) / payloadSize)
    }

    /// All chunks of a message, in order. An empty message is the one chunk `[0x00]`.
    public func chunks(of message: [UInt8]) -> [[UInt8]] {
        var out: [[UInt8]] = []
        out.reserveCapacity(chunkCount(forMessageSize: message.count))
        var offset = 0
        repeat {
            let (chunk, next) = chunk(of: message, from: offset)
            out.append(chunk)
            offset = next
        } while offset < message.count
        return out
    }

    /// The chunk that starts at `offset` in `message`, and the offset of the next one
    /// (`message.count` after the last). Lets a sender cut chunks as it goes instead of
    /// holding a copy of the whole message in chunks.
    public func chunk(of message: [UInt8], from offset: Int) -> (chunk: [UInt8], next: Int) {
        precondition(offset >= 0 && offset <= message.count, "offset outside the message")
        let end = min(message.count, offset + payloadSize)
        var chunk: [UInt8] = []
        chunk.reserveCapacity(1 + end - offset)
        chunk.append(end < message.count ? ChunkHeader.more.rawValue : ChunkHeader.last.rawValue)
        chunk.append(contentsOf: message[offset..<end])
        return (chunk, end)
    }
}

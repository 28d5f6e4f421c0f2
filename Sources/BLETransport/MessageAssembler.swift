/// Reassembles GATT chunks into messages (the receiving half of ``MessageFragmenter``).
///
/// The peer is not trusted: a message may not grow past ``maximumMessageSize``, so a hostile
/// reader cannot make the holder allocate without bound. After any error the assembler has
/// dropped the partial message and starts afresh with the next chunk; the caller should end
/// the session anyway, as the stream is no longer in step.
public struct MessageAssembler: Sendable {
    /// The largest message accepted, in bytes (headers not counted).
    public let maximumMessageSize: Int
    private var buffer: [UInt8] = []

    /// - Parameter maximumMessageSize: see ``MessageSizeLimit``.
    public init(maximumMessageSize: Int) {
        precondition(maximumMessageSize >= 0, "a negative message size limit")
        self.maximumMessageSize = maximumMessageSize
    }

    /// Bytes of the message in progress received so far.
    public var bufferedByteCount: Int { buffer.count }

    /// Whether a message has been started and not finished.
    public var isMidMessage: Bool { !buffer.isEmpty }

    /// Takes one chunk; returns the message it completes, or nil when more chunks follow.
    ///
    /// - Throws: ``BLETransportError/emptyChunk``, ``BLETransportError/unknownChunkHeader(_:)``,
    ///   ``BLETransportError/messageTooLarge(size:limit:)``; the partial message is dropped.
    public mutating func append(_ chunk: some Collection<UInt8>) throws(BLETransportError) -> [UInt8]? {
        guard let first = chunk.first else {
            reset()
            throw .emptyChunk
        }
        guard let header = ChunkHeader(rawValue: first) else {
            reset()
            throw .unknownChunkHeader(first)
        }
        let payloadCount = chunk.count - 1
        let size = buffer.count + payloadCount
        guard size <= maximumMessageSize else {
            reset()
            throw .messageTooLarge(size: size, limit: maximumMessageSize)
        }
        buffer.append(contentsOf: chunk.dropFirst())
        switch header {
        case .more:
            return nil
        case .last:
            let message = buffer
            buffer = []
            return message
        }
    }

    /// Drops the message in progress.
    public mutating func reset() {
        buffer = []
    }
}

/// Reads ``L2CAPFraming`` frames from an L2CAP byte stream that arrives in pieces of any size
/// (an SDU may hold part of a frame, or several).
///
/// The declared length is checked against ``maximumMessageSize`` as soon as the 4-byte
/// header is in, before anything is buffered, so a hostile length costs nothing. After an
/// error the decoder has reset, but the stream is out of step: close the channel.
public struct L2CAPMessageDecoder: Sendable {
    public let maximumMessageSize: Int
    private var header: [UInt8] = []
    /// Length of the frame being read, once its header is complete.
    private var expected: Int?
    private var body: [UInt8] = []

    /// - Parameter maximumMessageSize: see ``MessageSizeLimit``.
    public init(maximumMessageSize: Int) {
        precondition(maximumMessageSize >= 0, "a negative message size limit")
        self.maximumMessageSize = maximumMessageSize
    }

    /// Whether part of a frame has been read and not yet completed.
    public var isMidMessage: Bool { !header.isEmpty || expected != nil }

    /// Takes the next bytes of the stream; returns the messages they complete, in order.
    ///
    /// - Throws: ``BLETransportError/messageTooLarge(size:limit:)`` when a frame declares more
    ///   than the limit.
    public mutating func append(_ bytes: some Collection<UInt8>) throws(BLETransportError) -> [[UInt8]] {
        var messages: [[UInt8]] = []
        var rest = bytes[...]
        while !rest.isEmpty {
            if let length = expected {
                let take = min(length - body.count, rest.count)
                body.append(contentsOf: rest.prefix(take))
                rest = rest.dropFirst(take)
            } else {
                let take = min(L2CAPFraming.headerSize - header.count, rest.count)
                header.append(contentsOf: rest.prefix(take))
                rest = rest.dropFirst(take)
                guard header.count == L2CAPFraming.headerSize else { break }
                let length = header.reduce(0) { $0 << 8 | Int($1) }
                guard length <= maximumMessageSize else {
                    reset()
                    throw .messageTooLarge(size: length, limit: maximumMessageSize)
                }
                header = []
                expected = length
                body = []
                // Grow with what arrives rather than trusting the declared length in full.
                body.reserveCapacity(min(length, 64 * 1024))
            }
            if let length = expected, body.count == length {
                messages.append(body)
                body = []
                expected = nil
            }
        }
        return messages
    }

    /// Drops the frame in progress.
    public mutating func reset() {
        header = []
        expected = nil
        body = []
    }
}

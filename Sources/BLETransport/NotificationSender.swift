/// Flow control for outgoing chunks: one chunk in flight at a time.
///
/// BlueZ (like every stack) drops or reorders notifications sent faster than the link takes
/// them, and 18013-5 chunks must arrive in order, so the next chunk goes out only after the
/// GATT layer reports the previous one left (``chunkSent()``). Queue messages with
/// ``enqueue(_:)``; ask for the chunk to send with ``nextChunk()``, which returns nil while a
/// chunk is in flight or the queue is empty.
///
/// Chunks are cut as they are sent, so a long response is held once, not twice.
public struct NotificationSender: Sendable {
    /// The fragmenter for messages not yet begun; a message in progress keeps the chunk size
    /// it started with (an MTU change mid-message does not change its chunking).
    public var fragmenter: MessageFragmenter

    /// Messages not yet fully handed out; the first may be partly handed out.
    private var queue: [[UInt8]] = []
    private var headIndex = 0
    /// Offset in `queue[headIndex]` of the next chunk.
    private var offset = 0
    /// The fragmenter of the message in progress (set when its first chunk is cut).
    private var current: MessageFragmenter?
    /// The chunk handed out and not yet confirmed: its message bytes, and whether it was the
    /// last chunk of its message.
    private var inFlight: (payload: Int, endsMessage: Bool)?

    /// This transfer's progress (see ``TransferProgress``).
    public private(set) var progress = TransferProgress()
    /// Messages fully sent since this sender was made, over all transfers.
    public private(set) var messagesCompleted = 0

    public init(fragmenter: MessageFragmenter) {
        self.fragmenter = fragmenter
    }

    /// A chunk was handed out and its sending not yet confirmed.
    public var hasChunkInFlight: Bool { inFlight != nil }

    /// Nothing queued and nothing in flight.
    public var isIdle: Bool { inFlight == nil && headIndex == queue.count }

    /// Queues a message (an empty one becomes the single chunk `[0x00]`). Starts a new
    /// transfer, resetting ``progress``, when the sender was idle.
    public mutating func enqueue(_ message: [UInt8]) {
        if isIdle {
            progress = TransferProgress()
            queue.removeAll(keepingCapacity: true)
            headIndex = 0
        }
        queue.append(message)
        progress.totalBytes += message.count
        progress.messageCount += 1
    }

    /// The next chunk to send, if none is in flight and one is queued; it is then in flight
    /// until ``chunkSent()``.
    public mutating func nextChunk() -> [UInt8]? {
        guard inFlight == nil, headIndex < queue.count else { return nil }
        let fragmenter = current ?? self.fragmenter
        current = fragmenter
        let message = queue[headIndex]
        let (chunk, next) = fragmenter.chunk(of: message, from: offset)
        let endsMessage = next == message.count
        inFlight = (next - offset, endsMessage)
        if endsMessage {
            // Release the message now; its bytes are all in `chunk`.
            queue[headIndex] = []
            headIndex += 1
            offset = 0
            current = nil
        } else {
            offset = next
        }
        return chunk
    }

    /// The GATT layer confirms the chunk in flight went out. Ignored when none is in flight.
    public mutating func chunkSent() {
        guard let sent = inFlight else { return }
        inFlight = nil
        progress.bytesSent += sent.payload
        if sent.endsMessage {
            progress.messagesSent += 1
            messagesCompleted += 1
        }
    }

    /// Drops everything queued and the chunk in flight (a disconnect mid-transfer). Returns
    /// the progress at that point: the chunk in flight is not counted as sent.
    @discardableResult
    public mutating func cancel() -> TransferProgress {
        let reached = progress
        queue = []
        headIndex = 0
        offset = 0
        current = nil
        inFlight = nil
        progress = TransferProgress()
        return reached
    }
}

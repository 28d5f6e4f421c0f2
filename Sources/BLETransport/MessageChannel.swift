/// What a ``MessageChannel`` delivers: the peer's messages, in order, then its end.
public enum MessageChannelEvent: Sendable, Hashable {
    /// A complete message of the peer (SessionEstablishment or SessionData bytes).
    case message([UInt8])
    /// The channel is closed, for this reason; every later receive returns the same.
    case closed(BLESessionEndReason)
}

/// An 18013-5 session's messages over one BLE connection, whatever carries them: GATT
/// chunks (``GattMessageChannel``, either GATT role) or L2CAP frames
/// (``L2CAPMessageChannel``). The holder's and the reader's loops only move messages between
/// a channel and their engine.
public protocol MessageChannel: Sendable {
    /// Sends one message, after those sent before.
    /// - Throws: ``MessageChannelError/closed`` once the channel is closed, or what the link
    ///   throws.
    func send(_ message: [UInt8]) async throws
    /// The next event of the peer; nil when `timeout` passed first (nil: no bound).
    func receive(timeout: Duration?) async -> MessageChannelEvent?
    /// Ends the session: what is queued goes out, then the transport's termination (State
    /// 0x02 on GATT, the socket closing on L2CAP), and the link is released. Returns once
    /// done (or bounded when the peer stopped taking data), with how the session ended:
    /// `localEnded` when it ended as asked, else what came first (the peer's end, a
    /// disconnect, the bound passing with data still queued: `disconnected`).
    @discardableResult
    func close() async -> BLESessionEndReason
    /// Lets go of the link at once: nothing more goes out (no State 0x02), what is queued is
    /// lost, the peer sees a disconnect, and receivers get `.closed`. For a peer that does
    /// not take what we send, or a session that has to end now.
    func drop() async
    /// Since when a message of ours has waited with no part of it going out (the peer never
    /// subscribed, or stopped taking chunks); nil when nothing waits. A transport whose send
    /// blocks instead (L2CAP: the socket fills) reports nil.
    var outputWaitingSince: ContinuousClock.Instant? { get async }
}

/// Why a message could not be sent.
public enum MessageChannelError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The channel is closed (by either side, or the link dropped).
    case closed

    public var description: String { "the channel is closed" }
}

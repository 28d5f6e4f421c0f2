/// The transport's bounds on one proximity session, whatever the reader does. The holder
/// engine's own timeouts (idle, consent) are measured in messages; these are measured on
/// the link, so a reader that connects and says nothing, that never subscribes to the
/// holder's answer, or that trickles bytes forever still lets the session end, the link
/// drop and the next session (a kiosk) start.
public struct ProximityTimeouts: Sendable, Hashable {
    /// From the reader's connection to its first complete message (SessionEstablishment).
    public var firstRequest: Duration
    /// From the reader's connection to the end of the session.
    public var session: Duration
    /// How long a message of the holder may wait without a chunk of it going out (the reader
    /// never subscribed, or stopped taking notifications), and how long the link may stay up
    /// after the holder ended the session; then the link is dropped with whatever was queued.
    public var drain: Duration

    /// Defaults a person at a reader never meets: 30 s to send a request after connecting,
    /// 5 minutes in all, 10 s to take the last message.
    public init(
        firstRequest: Duration = .seconds(30), session: Duration = .seconds(300), drain: Duration = .seconds(10)
    ) {
        self.firstRequest = firstRequest
        self.session = session
        self.drain = drain
    }
}

/// Which of the ``ProximityTimeouts`` ended a session.
public enum ProximityTimeout: Sendable, Hashable, CustomStringConvertible {
    case firstRequest
    case session
    case drain

    public var description: String {
        switch self {
        case .firstRequest: "the reader sent no request within the time allowed after connecting"
        case .session: "the session reached its time limit"
        case .drain: "the reader did not take the holder's message in time; the link was dropped"
        }
    }
}

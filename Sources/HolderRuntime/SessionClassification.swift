import PrintableText

/// How one session (a proximity presentation, an online presentation, an issuance) ended, in
/// one word: the service's Ended reason and the command line's exit status are renderings of it.
public enum SessionClassification: Sendable, Hashable {
    /// Something went out and was delivered (elements released, a response accepted,
    /// credentials stored).
    case completed
    /// An issuance deferred beyond the wait, kept pending in the store.
    case pending
    /// The user, the policy or the store released nothing (declined, untrusted reader, no
    /// matching credential); the other side was answered.
    case declined
    /// A bound on the session ran out before anything was delivered.
    case timeout
    /// The reader ended the session before a response.
    case readerEnded
    /// The link dropped before the response was delivered.
    case disconnected
    /// Anything else: what failed, in words (never a value).
    case failed(String)

    /// The `reason` of the service's Ended signal: completed, pending, declined, timeout,
    /// reader-ended, disconnected, or "error: TEXT".
    public var reason: String {
        switch self {
        case .completed: "completed"
        case .pending: "pending"
        case .declined: "declined"
        case .timeout: "timeout"
        case .readerEnded: "reader-ended"
        case .disconnected: "disconnected"
        case .failed(let text): Self.error(text)
        }
    }

    /// "error: TEXT", TEXT escaped and bounded (it may carry text from the other side).
    public static func error(_ text: String) -> String {
        "error: " + RemoteText.printable(text, limit: 2048)
    }

    /// The exit status of `mdoc-holder present --once`: 0 released, 2 nothing released (the
    /// reader was answered), 1 failed.
    public var presentExitStatus: Int32 {
        switch self {
        case .completed: 0
        case .declined: 2
        case .pending, .timeout, .readerEnded, .disconnected, .failed: 1
        }
    }

    /// The exit status of `present-online` and `credentials receive`: 0 when the response
    /// was accepted or the credentials stored or kept pending, 1 otherwise.
    public var onlineExitStatus: Int32 {
        switch self {
        case .completed, .pending: 0
        case .declined, .timeout, .readerEnded, .disconnected, .failed: 1
        }
    }
}

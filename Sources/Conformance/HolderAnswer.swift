import ISO18013

/// The holder's answer to what a case sent, as the case reads it.
public enum HolderAnswer: Sendable, CustomStringConvertible {
    /// SessionData with a status and no data (10, 11, 20, ...).
    case status(UInt64)
    /// SessionData with data that decrypted to a DeviceResponse; `sessionStatus` when the
    /// same SessionData also carried one (20: the holder ended the session with it).
    case response(ResponseSummary, plaintext: [UInt8], sessionStatus: UInt64?)
    /// A message that is not SessionData, or whose data did not decrypt or decode.
    case unreadable(String)
    /// The holder ended the session on the transport (State 0x02, closed channel) without a
    /// message.
    case ended(byState: Bool)
    /// Nothing within the bound.
    case silent(seconds: Double)
    /// A malformed chunk or frame, or the link failed.
    case transportError(String)

    /// Data was released: a DeviceResponse with at least one element.
    public var releasedData: Bool {
        if case .response(let summary, _, _) = self { return !summary.releasedElements.isEmpty }
        return false
    }

    public var description: String {
        switch self {
        case .status(let status): return "SessionData status \(status) without data"
        case .response(let summary, _, let status):
            return "SessionData with data (\(summary))" + (status.map { " and status \($0)" } ?? "")
        case .unreadable(let why): return "an unreadable message (\(why))"
        case .ended(let byState): return byState ? "State 0x02 without a message" : "the link closed without a message"
        case .silent(let seconds): return "nothing within \(Int(seconds.rounded())) s"
        case .transportError(let why): return "a transport error (\(why))"
        }
    }

}

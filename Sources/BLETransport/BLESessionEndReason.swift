/// Why a ``BLESession`` ended.
public enum BLESessionEndReason: Sendable, Hashable, CustomStringConvertible {
    /// The reader sent State 0x02 (the transport-specific termination).
    case readerEnded
    /// The holder ended the session (State 0x02 sent after the queued messages).
    case holderEnded
    /// The connection went away before any message of the holder was delivered, or in the
    /// middle of one.
    case disconnected
    /// The connection went away after a message of the holder was delivered in full and
    /// none was cut short: the usual way a reader ends a presentation, a success.
    case disconnectedAfterResponse
    /// The reader broke the protocol (bad chunk, oversize message, data before start, wrong
    /// or missing Ident).
    case protocolError(BLETransportError)

    /// The session ended as a presentation may end: by either side's choice or by a
    /// disconnect after a response. A reader that disconnects after the response is not an
    /// error (PROTOCOL.md, Termination).
    public var isOrderly: Bool {
        switch self {
        case .readerEnded, .holderEnded, .disconnectedAfterResponse: return true
        case .disconnected, .protocolError: return false
        }
    }

    public var description: String {
        switch self {
        case .readerEnded: return "the reader ended the session (State end)"
        case .holderEnded: return "the holder ended the session (State end)"
        case .disconnected: return "the connection was lost"
        case .disconnectedAfterResponse: return "the reader disconnected after the response"
        case .protocolError(let e): return "BLE protocol error: \(e)"
        }
    }
}

/// Why a ``BLESession`` (or another message channel) ended, seen from the side that runs it:
/// the holder in its loop, the reader in its own.
public enum BLESessionEndReason: Sendable, Hashable, CustomStringConvertible {
    /// The other side sent State 0x02 (the transport-specific termination), or on L2CAP a
    /// zero-length frame.
    case peerEnded
    /// This side ended the session (State 0x02 sent after the queued messages).
    case localEnded
    /// The connection went away before any message of ours was delivered, or in the middle
    /// of one.
    case disconnected
    /// The connection went away after a message of ours was delivered in full and none was
    /// cut short: the usual way a reader ends a presentation, a success.
    case disconnectedAfterResponse
    /// The other side broke the protocol (bad chunk, oversize message, data before start,
    /// wrong or missing Ident).
    case protocolError(BLETransportError)

    /// The session ended as a presentation may end: by either side's choice or by a
    /// disconnect after a response. A reader that disconnects after the response is not an
    /// error (PROTOCOL.md, Termination).
    public var isOrderly: Bool {
        switch self {
        case .peerEnded, .localEnded, .disconnectedAfterResponse: return true
        case .disconnected, .protocolError: return false
        }
    }

    /// The reason in words, naming the two sides (`peer` "the reader", `local` "the holder").
    public func description(peer: String, local: String) -> String {
        switch self {
        case .peerEnded: return "\(peer) ended the session (State end)"
        case .localEnded: return "\(local) ended the session (State end)"
        case .disconnected: return "the connection was lost"
        case .disconnectedAfterResponse: return "\(peer) disconnected after the response"
        case .protocolError(let e): return "BLE protocol error: \(e)"
        }
    }

    /// As the holder tells it.
    public var description: String { description(peer: "the reader", local: "the holder") }
}

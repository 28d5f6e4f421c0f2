/// What a ``BLESession`` asks the GATT layer and the presentation engine to do, in order.
public enum BLESessionOutput: Sendable, Hashable {
    /// GATT client with an expected Ident: the server's Ident matched; now enable
    /// notifications on its Server2Client and State characteristics, then feed
    /// ``BLESessionEvent/subscribed``.
    case identVerified
    /// The peer is there and the session is on (GATT server: the client wrote State 0x01;
    /// GATT client: we are subscribed and write State 0x01, in the output before this one).
    /// Stop advertising; messages may now arrive.
    case sessionStarted
    /// A complete message from the peer, for the presentation engine.
    case messageReceived([UInt8])
    /// Send this chunk: notify Server2Client (GATT server) or write without response to
    /// Client2Server (GATT client), then feed ``BLESessionEvent/chunkSent`` once it is out.
    /// Never emitted while a previous chunk is unconfirmed.
    case sendChunk([UInt8])
    /// Send this State value: notify State (GATT server) or write it without response (GATT
    /// client). Needs no confirmation.
    case sendState(BLEStateValue)
    /// The outgoing transfer advanced (after each confirmed chunk).
    case progress(TransferProgress)
    /// The session is over: release the connection (disconnect or unregister), and tell the
    /// presentation engine unless it ended the session itself. `interruptedTransfer` is how far a transfer had got when it was cut short, nil
    /// when nothing was being sent.
    case sessionEnded(BLESessionEndReason, interruptedTransfer: TransferProgress?)
}

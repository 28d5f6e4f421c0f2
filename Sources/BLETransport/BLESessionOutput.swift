/// What a ``BLESession`` asks the GATT layer and the presentation engine to do, in order.
public enum BLESessionOutput: Sendable, Hashable {
    /// Central-client mode: the reader's Ident matched; now enable notifications on the
    /// reader's Server2Client and State characteristics, then feed
    /// ``BLESessionEvent/subscribed``.
    case readerIdentVerified
    /// A reader is there and the session is on (peripheral-server: the reader wrote State
    /// 0x01; central-client: we are subscribed and write State 0x01, in the output before
    /// this one). Stop advertising; messages may now arrive.
    case sessionStarted
    /// A complete message from the reader, for the presentation engine
    /// (`HolderSession.receive`).
    case messageReceived([UInt8])
    /// Send this chunk: notify Server2Client (peripheral-server) or write without response
    /// to Client2Server (central-client), then feed ``BLESessionEvent/chunkSent`` once it is
    /// out. Never emitted while a previous chunk is unconfirmed.
    case sendChunk([UInt8])
    /// Send this State value: notify State (peripheral-server) or write it without response
    /// (central-client). Needs no confirmation.
    case sendState(BLEStateValue)
    /// The outgoing transfer advanced (after each confirmed chunk).
    case progress(TransferProgress)
    /// The session is over: release the connection (disconnect or unregister), and tell the
    /// presentation engine (`HolderSession.transportClosed()`) unless it ended the session
    /// itself. `interruptedTransfer` is how far a transfer had got when it was cut short, nil
    /// when nothing was being sent.
    case sessionEnded(BLESessionEndReason, interruptedTransfer: TransferProgress?)
}

/// What the GATT layer (or the holder) tells a ``BLESession``.
///
/// The same events serve both modes; where they come from differs:
///
/// | event | peripheral-server (holder = GATT server) | central-client (holder = GATT client) |
/// |---|---|---|
/// | ``mtuChanged(_:)`` | the `mtu` option of a WriteValue / AcquireNotify / AcquireWrite | the MTU after exchange (AcquireWrite / AcquireNotify) |
/// | ``identRead(_:)`` | — | value read from the reader's Ident characteristic |
/// | ``subscribed`` | the reader enabled notifications on Server2Client (StartNotify / AcquireNotify) | our notifications on Server2Client and State are enabled |
/// | ``unsubscribed`` | the reader disabled them (StopNotify) | — |
/// | ``stateReceived(_:)`` | the reader wrote State | the reader notified State |
/// | ``chunkReceived(_:)`` | the reader wrote Client2Server | the reader notified Server2Client |
/// | ``chunkSent`` | our last Server2Client notification went out | our last Client2Server write went out |
/// | ``disconnected`` | the reader's connection is gone | the connection to the reader is gone |
public enum BLESessionEvent: Sendable, Hashable {
    /// The ATT MTU of the connection became known or changed. Applies from the next message
    /// begun; an invalid value (below 23) is ignored.
    case mtuChanged(Int)
    /// Central-client mode: the value of the reader's Ident characteristic, or nil when the
    /// reader's service has none or it could not be read.
    case identRead([UInt8]?)
    /// Notifications of the incoming data characteristic are on; chunks may be sent.
    case subscribed
    /// The reader turned notifications off: chunks are held until ``subscribed`` again.
    case unsubscribed
    /// A value of the State characteristic from the reader.
    case stateReceived([UInt8])
    /// One chunk of a message from the reader.
    case chunkReceived([UInt8])
    /// The chunk from the last ``BLESessionOutput/sendChunk(_:)`` went out.
    case chunkSent
    /// The connection is gone.
    case disconnected
    /// The holder sends a message (SessionData bytes from the presentation engine).
    case send([UInt8])
    /// The holder ends the session: queued messages go out first, then State 0x02.
    case end
}

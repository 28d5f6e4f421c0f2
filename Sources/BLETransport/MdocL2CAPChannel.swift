/// A connected L2CAP connection-oriented channel as the mdoc transport needs it: bytes out
/// in order, bytes in as they arrive. ``L2CAPMessageChannel`` frames 18013-5 messages on
/// it. The socket implementation is in the L2CAP target; tests use an in-memory one.
public protocol MdocL2CAPChannel: Sendable {
    /// Sends `bytes`, in order; returns once they are taken.
    func send(_ bytes: [UInt8]) async throws
    /// The next bytes; throws once the channel is closed (by either side).
    func receive() async throws -> [UInt8]
    /// Ends the channel; a waiting ``receive()`` throws.
    func close()
}

/// A listening L2CAP channel on a dynamic PSM (the holder in mdoc peripheral-server mode).
public protocol MdocL2CAPListener: Sendable {
    /// The PSM the reader connects to (engagement key 21, the L2CAP PSM characteristic).
    var psm: UInt16 { get }
    /// Waits for a reader to connect.
    func accept() async throws -> any MdocL2CAPChannel
    /// Stops listening.
    func close()
}

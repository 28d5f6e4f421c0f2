import BLETransport

/// The reader's connection to one holder: the message channel, and how it was reached.
public struct ReaderConnection: Sendable {
    /// The holder's messages and ours.
    public let channel: any MessageChannel
    /// Messages go over an L2CAP channel (else GATT chunks).
    public let overL2CAP: Bool
    /// The ATT MTU GATT chunks are cut for (nil on L2CAP).
    public let mtu: Int?
    /// Releases what the channel rides on (the GATT connection under an L2CAP channel, or
    /// our service when the holder took our L2CAP channel instead).
    let releaseLink: @Sendable () async -> Void

    init(
        channel: any MessageChannel, overL2CAP: Bool, mtu: Int?, releaseLink: @escaping @Sendable () async -> Void = {}
    ) {
        self.channel = channel
        self.overL2CAP = overL2CAP
        self.mtu = mtu
        self.releaseLink = releaseLink
    }

    /// What ``receive(timeout:)`` returns.
    public enum Received: Sendable, Equatable {
        /// A complete message from the holder.
        case message([UInt8])
        /// The holder ended the session (State 0x02, or the link dropped) without sending a
        /// (further) message.
        case holderEnded(byState: Bool)
    }

    /// Sends one message.
    public func send(_ message: [UInt8]) async throws(BLEReaderError) {
        do {
            try await channel.send(message)
        } catch {
            throw .writeFailed(what: overL2CAP ? "a message on the L2CAP channel" : "a message", "\(error)")
        }
    }

    /// The next message from the holder, or the holder's end of the session.
    ///
    /// - Throws: ``BLEReaderError/noResponse(seconds:)`` after `timeout`,
    ///   ``BLEReaderError/chunkError(_:)`` on a malformed chunk or frame.
    public func receive(timeout: Duration) async throws(BLEReaderError) -> Received {
        switch await channel.receive(timeout: timeout) {
        case .message(let message)?: return .message(message)
        case .closed(.protocolError(let error))?: throw .chunkError(error)
        case .closed(.peerEnded)?: return .holderEnded(byState: !overL2CAP)
        case .closed?: return .holderEnded(byState: false)
        case nil: throw .noResponse(seconds: timeout / .seconds(1))
        }
    }

    /// Ends the session: `termination` (SessionData status 20) first unless the session is
    /// already over, then the transport's end, then the link is released. Failures are
    /// ignored: the session is over either way.
    /// - Returns: whether `termination` went out.
    @discardableResult
    public func close(sending termination: [UInt8]?) async -> Bool {
        var sent = false
        if let termination {
            sent = (try? await channel.send(termination)) != nil
        }
        await channel.close()
        await releaseLink()
        return sent
    }
}

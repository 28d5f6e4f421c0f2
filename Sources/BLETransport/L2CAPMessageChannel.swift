/// 18013-5 messages over an L2CAP channel: each sent as one ``L2CAPFraming`` frame, each
/// received when its frame is complete (``L2CAPMessageDecoder``). There is no State on L2CAP:
/// a zero-length frame is the peer ending the session (SpruceID sends one), and this side
/// ends by closing the channel.
public actor L2CAPMessageChannel: MessageChannel {
    public let channel: any MdocL2CAPChannel
    private var decoder: L2CAPMessageDecoder
    private let inbox = MessageInbox()
    private var pump: Task<Void, Never>?
    private var messagesSent = 0
    private var closed = false
    /// How the channel ended, once it did.
    private var endReason: BLESessionEndReason?

    /// - Parameter maximumMessageSize: the largest message of the peer (``MessageSizeLimit``).
    public init(channel: any MdocL2CAPChannel, maximumMessageSize: Int) {
        self.channel = channel
        decoder = L2CAPMessageDecoder(maximumMessageSize: maximumMessageSize)
    }

    /// Sends one message as one frame.
    public func send(_ message: [UInt8]) async throws {
        guard !closed else { throw MessageChannelError.closed }
        try await channel.send(try L2CAPFraming.frame(message))
        messagesSent += 1
    }

    /// The next message; `.closed` for a zero-length frame (``BLESessionEndReason/peerEnded``),
    /// a frame over the limit (``BLESessionEndReason/protocolError(_:)``, the channel then
    /// closed) or the channel closing (a disconnect, after a response when one of ours went
    /// out).
    public func receive(timeout: Duration?) async -> MessageChannelEvent? {
        if pump == nil {
            pump = Task { [weak self] in
                while let self, await self.readFrame() {}
            }
        }
        return await inbox.next(timeout: timeout)
    }

    /// Reads one piece of the stream; false once the channel is done.
    private func readFrame() async -> Bool {
        let bytes: [UInt8]
        do {
            bytes = try await channel.receive()
        } catch {
            await end(messagesSent > 0 ? .disconnectedAfterResponse : .disconnected)
            return false
        }
        do {
            for message in try decoder.append(bytes) {
                if message.isEmpty {
                    await end(.peerEnded)
                    return false
                }
                await inbox.deliver(.message(message))
            }
            return true
        } catch {
            await end(.protocolError(error))
            return false
        }
    }

    private func end(_ reason: BLESessionEndReason) async {
        if endReason == nil { endReason = reason }
        await inbox.deliver(.closed(reason))
        close()
    }

    /// Whether the channel closed in the middle of a frame.
    public var isMidMessage: Bool { decoder.isMidMessage }

    /// Closes the channel: the socket closing is L2CAP's end of a session, so dropping and
    /// closing are the same.
    public func drop() {
        close()
    }

    /// Nil: a send blocks while the peer takes nothing (the socket fills), so nothing waits
    /// beside it.
    public var outputWaitingSince: ContinuousClock.Instant? { nil }

    /// Closes the channel; a waiting receive gets `.closed`. Returns `localEnded`, or how the
    /// channel ended before.
    @discardableResult
    public func close() -> BLESessionEndReason {
        if endReason == nil { endReason = .localEnded }
        if !closed {
            closed = true
            channel.close()
        }
        return endReason ?? .localEnded
    }
}

/// 18013-5 messages over an L2CAP channel: each sent as one ``L2CAPFraming`` frame, each
/// received when its frame is complete (``L2CAPMessageDecoder``). There is no State on L2CAP:
/// a zero-length frame is the peer ending the session (SpruceID sends one), and this side
/// ends by closing the channel.
///
/// Keeps ``MessageChannel``'s contract as ``GattMessageChannel`` does: ``send(_:)`` queues
/// the frame (a writer takes the queue to the socket in order), ``outputWaitingSince`` says
/// since when the frame being written has waited for the peer (the socket fills when it stops
/// reading), and ``close()`` lets the queue drain within ``drainTimeout`` before the socket
/// closes, then says how the session ended.
public actor L2CAPMessageChannel: MessageChannel {
    public let channel: any MdocL2CAPChannel
    /// How long ``close()`` waits for what is queued to go out before it drops the link.
    public let drainTimeout: Duration
    private var decoder: L2CAPMessageDecoder
    private let inbox = MessageInbox()
    private var pump: Task<Void, Never>?
    /// Frames not yet taken by the socket, the first one being written.
    private var outgoing: [[UInt8]] = []
    private var writer: Task<Void, Never>?
    private var drainWaiters: [CheckedContinuation<Void, Never>] = []
    private var messagesSent = 0
    private var socketClosed = false
    /// How the channel ended, once it did.
    private var endReason: BLESessionEndReason?
    /// Since when the frame being written has waited for the socket to take it.
    public private(set) var outputWaitingSince: ContinuousClock.Instant?

    /// - Parameters:
    ///   - maximumMessageSize: the largest message of the peer (``MessageSizeLimit``).
    ///   - drainTimeout: the bound on ``close()`` waiting for queued frames.
    public init(channel: any MdocL2CAPChannel, maximumMessageSize: Int, drainTimeout: Duration = .seconds(10)) {
        self.channel = channel
        self.drainTimeout = drainTimeout
        decoder = L2CAPMessageDecoder(maximumMessageSize: maximumMessageSize)
    }

    /// Queues one message as one frame, after those sent before.
    public func send(_ message: [UInt8]) async throws {
        guard endReason == nil else { throw MessageChannelError.closed }
        outgoing.append(try L2CAPFraming.frame(message))
        if writer == nil {
            writer = Task { await self.writeQueued() }
        }
    }

    /// Writes the queued frames in order; a failed write is the link going away.
    private func writeQueued() async {
        while let frame = outgoing.first, endReason == nil {
            outputWaitingSince = .now
            do {
                try await channel.send(frame)
            } catch {
                await end(.disconnected)
                break
            }
            if !outgoing.isEmpty { outgoing.removeFirst() }
            messagesSent += 1
        }
        outputWaitingSince = nil
        writer = nil
        resumeDrainWaiters()
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

    /// The session is over for `reason` (the first one counts): what is queued is lost, the
    /// socket closes, receivers get `.closed`.
    private func end(_ reason: BLESessionEndReason) async {
        if endReason == nil { endReason = reason }
        outgoing = []
        outputWaitingSince = nil
        if !socketClosed {
            socketClosed = true
            channel.close()
        }
        resumeDrainWaiters()
        await inbox.deliver(.closed(endReason ?? reason))
    }

    /// Whether the channel closed in the middle of a frame.
    public var isMidMessage: Bool { decoder.isMidMessage }

    /// Closes the socket at once, with whatever is queued: the peer sees a disconnect.
    public func drop() async {
        await end(.disconnected)
    }

    /// Lets the queued frames go out (within ``drainTimeout``; past it the link is dropped),
    /// then closes the socket, L2CAP's end of a session. Returns `localEnded`, or how the
    /// channel ended before (the peer's end, a disconnect, the bound passing: `disconnected`).
    @discardableResult
    public func close() async -> BLESessionEndReason {
        if endReason == nil, writer != nil {
            let timer = Task { [weak self, drainTimeout] in
                try? await Task.sleep(for: drainTimeout)
                await self?.drainTimedOut()
            }
            await withCheckedContinuation { drainWaiters.append($0) }
            timer.cancel()
        }
        await end(.localEnded)
        return endReason ?? .localEnded
    }

    /// The drain bound passed with frames still queued: the link is dropped.
    private func drainTimedOut() async {
        if writer != nil { await end(.disconnected) }
    }

    private func resumeDrainWaiters() {
        let waiters = drainWaiters
        drainWaiters = []
        for waiter in waiters { waiter.resume() }
    }
}

/// Messages over GATT chunks, for either side and either GATT role: a ``BLESession`` fed by
/// the link's events, its outputs carried out on the link (``GattLink``), one at a time and
/// in order, the peer's messages handed to the receiver.
///
/// Made by ``serving(_:events:options:)`` once the service is registered (the session
/// starts when the client subscribes and writes State 0x01) or by
/// ``connected(_:connection:expectedIdent:options:)`` once connected (the Ident is checked
/// when one is expected, then we subscribe and write State 0x01).
public actor GattMessageChannel: MessageChannel {
    /// How the channel treats the link.
    public struct Options: Sendable {
        /// The largest message of the peer accepted (``MessageSizeLimit``).
        public var maximumMessageSize: Int
        /// The ATT MTU to cut chunks for until the link reports one; nil: the ATT minimum.
        public var assumedMTU: Int?
        /// The largest chunk (header byte included) to send, below min(512, ATT MTU - 3):
        /// for a controller that loses ATT packets larger than its ACL buffers. Nil: the
        /// standard's size.
        public var maximumChunkSize: Int?
        /// How long a State 0x02 or a disconnect of the peer is held while its chunks may
        /// still arrive: a GATT client gets State and Server2Client as separate
        /// subscriptions, so the last chunk of a message may come just after the State that
        /// follows it. Zero: at once.
        public var peerEndGrace: Duration
        /// How long ``close()`` waits for what is queued to go out before it drops the link.
        public var drainTimeout: Duration
        /// Gets the outgoing transfer's progress after each chunk.
        public var progress: (@Sendable (TransferProgress) -> Void)?

        public init(
            maximumMessageSize: Int, assumedMTU: Int? = nil, maximumChunkSize: Int? = nil,
            peerEndGrace: Duration = .zero, drainTimeout: Duration = .seconds(10),
            progress: (@Sendable (TransferProgress) -> Void)? = nil
        ) {
            self.maximumMessageSize = maximumMessageSize
            self.assumedMTU = assumedMTU
            self.maximumChunkSize = maximumChunkSize
            self.peerEndGrace = peerEndGrace
            self.drainTimeout = drainTimeout
            self.progress = progress
        }
    }

    public let link: GattLink
    private var session: BLESession
    private let options: Options
    private let inbox = MessageInbox()
    /// Outputs of the session not yet carried out, and whether they are being carried out.
    private var pending: [BLESessionOutput] = []
    private var performing = false
    private var pump: Task<Void, Never>?
    private var startWaiters: [CheckedContinuation<Bool, Never>] = []
    private var endWaiters: [CheckedContinuation<Void, Never>] = []
    /// The link's release, once begun.
    private var releasing: Task<Void, Never>?
    /// How the session ended, once it did.
    private var endReason: BLESessionEndReason?
    /// Since when a message of ours has waited with no chunk going out.
    public private(set) var outputWaitingSince: ContinuousClock.Instant?

    private init(link: GattLink, role: BLESession.Role, options: Options) throws(BLETransportError) {
        self.link = link
        self.options = options
        session = try BLESession(
            role: role, mtu: Self.cappedMTU(options.assumedMTU ?? MessageFragmenter.minimumMTU, options),
            maximumMessageSize: options.maximumMessageSize)
    }

    /// The GATT server role: `events` are those of `server.start(_:)`.
    public static func serving(_ server: any MdocGattServer, events: AsyncStream<MdocGattEvent>, options: Options)
        async throws(BLETransportError) -> GattMessageChannel
    {
        let channel = try GattMessageChannel(link: .server(server), role: .gattServer, options: options)
        await channel.listen(events) { BLESessionEvent($0) }
        return channel
    }

    /// The GATT client role, connected: with `expectedIdent` (the holder) the server's Ident
    /// is read and checked first; then we subscribe and write State 0x01.
    public static func connected(
        _ client: any MdocGattClient, connection: MdocGattConnection, expectedIdent: BLEIdent?, options: Options
    ) async throws(BLETransportError) -> GattMessageChannel {
        var options = options
        if let mtu = connection.mtu { options.assumedMTU = mtu }
        let channel = try GattMessageChannel(
            link: .client(client), role: .gattClient(expectedIdent: expectedIdent), options: options)
        await channel.listen(connection.events) { BLESessionEvent($0) }
        if expectedIdent != nil {
            let ident = try? await client.readIdent()
            await channel.feed(.identRead(ident ?? nil))
        } else {
            await channel.subscribe()
        }
        return channel
    }

    /// The ATT MTU chunks are cut for.
    public var mtu: Int { session.mtu }

    /// Whether the session started (State 0x01) and has not ended.
    public var hasStarted: Bool { session.hasStarted }

    /// Waits until the session started (true) or ended before it started (false); false
    /// after `timeout`.
    public func waitUntilStarted(timeout: Duration) async -> Bool {
        if session.hasStarted { return true }
        if session.isEnded { return false }
        let timer = Task { [weak self] in
            try? await Task.sleep(for: timeout)
            await self?.resumeStartWaiters(false)
        }
        defer { timer.cancel() }
        return await withCheckedContinuation { startWaiters.append($0) }
    }

    public func send(_ message: [UInt8]) async throws {
        guard !session.isEnded else { throw MessageChannelError.closed }
        await feed(.send(message))
    }

    public func receive(timeout: Duration?) async -> MessageChannelEvent? {
        await inbox.next(timeout: timeout)
    }

    @discardableResult
    public func close() async -> BLESessionEndReason {
        guard !session.isEnded else {
            await release()
            return endReason ?? .localEnded
        }
        let timer = Task { [weak self, options] in
            try? await Task.sleep(for: options.drainTimeout)
            await self?.feed(.disconnected)
        }
        defer { timer.cancel() }
        await feed(.end)
        if !session.isEnded || performing { await withCheckedContinuation { endWaiters.append($0) } }
        await release()
        return endReason ?? .localEnded
    }

    public func drop() async {
        await feed(.disconnected)
        // Also when a chunk is still being carried out: the link goes now.
        await release()
    }

    // MARK: - The session

    /// Feeds the link's events to the session until they end (then: disconnected). The
    /// peer's end is held for ``Options/peerEndGrace`` while its chunks still arrive.
    private func listen<Event: Sendable>(
        _ events: AsyncStream<Event>, _ map: @escaping @Sendable (Event) -> BLESessionEvent?
    ) {
        let grace = options.peerEndGrace
        pump = Task { [weak self] in
            for await event in events {
                guard let self, let event = map(event) else { continue }
                if grace > .zero, Self.isPeerEnd(event) {
                    Task { [weak self] in
                        try? await Task.sleep(for: grace)
                        await self?.feed(event)
                    }
                } else {
                    await self.feed(event)
                }
            }
            if grace > .zero { try? await Task.sleep(for: grace) }
            await self?.feed(.disconnected)
        }
    }

    private static func isPeerEnd(_ event: BLESessionEvent) -> Bool {
        switch event {
        case .stateReceived(let value): return BLEStateValue(value: value) == .end
        case .disconnected: return true
        default: return false
        }
    }

    /// Subscribes (GATT client), then tells the session; a failure ends it.
    private func subscribe() async {
        guard case .client(let client) = link else { return }
        do {
            try await client.subscribe()
            await feed(.subscribed)
        } catch {
            await feed(.disconnected)
        }
    }

    /// Takes one event and carries out what the session asks, in order. Outputs produced
    /// while one is carried out (another event arrived meanwhile) join the queue.
    private func feed(_ event: BLESessionEvent) async {
        take(event)
        guard !performing else { return }
        performing = true
        while !pending.isEmpty {
            await perform(pending.removeFirst())
        }
        performing = false
        noteWaiting()
        if session.isEnded { resumeEndWaiters() }
    }

    private func take(_ event: BLESessionEvent) {
        if case .mtuChanged(let mtu) = event {
            pending += session.handle(.mtuChanged(Self.cappedMTU(mtu, options)))
        } else {
            pending += session.handle(event)
        }
    }

    /// The MTU chunks are cut for: a chunk is at most MTU - 3 bytes, so an MTU of cap + 3
    /// caps it at ``Options/maximumChunkSize``.
    private static func cappedMTU(_ mtu: Int, _ options: Options) -> Int {
        options.maximumChunkSize.map { min(mtu, $0 + 3) } ?? mtu
    }

    /// Starts the clock of a message waiting with nothing going out, or stops it.
    private func noteWaiting() {
        if session.hasPendingOutput {
            if outputWaitingSince == nil { outputWaitingSince = .now }
        } else {
            outputWaitingSince = nil
        }
    }

    private func perform(_ output: BLESessionOutput) async {
        switch output {
        case .identVerified:
            guard case .client(let client) = link else { return }
            do {
                try await client.subscribe()
                take(.subscribed)
            } catch {
                take(.disconnected)
            }
        case .sessionStarted:
            resumeStartWaiters(true)
        case .messageReceived(let message):
            await inbox.deliver(.message(message))
        case .sendChunk(let chunk):
            do {
                try await link.sendChunk(chunk)
                outputWaitingSince = .now
                take(.chunkSent)
            } catch {
                take(.disconnected)
            }
        case .sendState(let state):
            try? await link.sendState(state)
        case .progress(let progress):
            options.progress?(progress)
        case .sessionEnded(let reason, _):
            if endReason == nil { endReason = reason }
            resumeStartWaiters(false)
            // Released before the receiver hears of it: the session is over once the link is.
            await release()
            await inbox.deliver(.closed(reason))
        }
    }

    /// Releases the link once, then stops the pump. Every caller returns only once the link
    /// is released, also one that comes while another release is under way: a holder that
    /// shows its next engagement before the last session's Disconnect went out has that
    /// Disconnect cut the next reader's connection. (The roles finish their release also
    /// when the calling task is cancelled: BLEBlueZ's `stop()` and `disconnect()`.)
    private func release() async {
        if let releasing {
            await releasing.value
            return
        }
        let link = link
        let releasing = Task { await link.release() }
        self.releasing = releasing
        await releasing.value
        pump?.cancel()
    }

    private func resumeStartWaiters(_ started: Bool) {
        let waiters = startWaiters
        startWaiters = []
        for waiter in waiters { waiter.resume(returning: started) }
    }

    private func resumeEndWaiters() {
        let waiters = endWaiters
        endWaiters = []
        for waiter in waiters { waiter.resume() }
    }
}

import BLETransport
import Consent
import Foundation
import ISO18013
import MdocCrypto
import Presentation

/// One session of ``ProximityHolder``: waits for the first reader in the offered modes
/// (``HolderLinks``), then moves messages between the ``MessageChannel`` in use (GATT
/// chunks or L2CAP frames) and the holder engine, with consent, the clock and the transport
/// bounds (``ProximityTimeouts``).
///
/// Lives in the task that runs the session, never shared: its state is plain properties.
final class HolderLoop {
    /// Inputs of the loop, from the channel, the links, the consent prompt and the clock.
    enum Input: Sendable {
        /// An event of the channel in use; `generation` tells a replaced channel's apart.
        case channel(MessageChannelEvent, generation: Int)
        /// The session started on a GATT channel (State 0x01).
        case started(generation: Int)
        /// A reader opened our L2CAP channel after it showed up at our GATT service.
        case l2capConnected(any MdocL2CAPChannel)
        case decided(ConsentDecision)
        case tick
    }

    let setup: ProximityHolder
    let engagement: DeviceEngagement
    let listener: (any MdocL2CAPListener)?
    let progress: @Sendable (TransferProgress) -> Void
    let observer: @Sendable (ProximitySessionEvent) -> Void
    var result: ProximitySessionResult
    private var holder: HolderSession
    private let inputs: AsyncStream<Input>
    private let continuation: AsyncStream<Input>.Continuation
    private var tasks: [Task<Void, Never>] = []
    private var consentTask: Task<Void, Never>?

    /// The channel messages go over and its generation: our GATT service's, replaced by an
    /// L2CAP channel a reader opens before it starts a GATT session.
    private var channel: (any MessageChannel)?
    private var generation = 0
    private var channelClosed = false
    /// Whether the observer heard that the reader connected (told once, before its request).
    private var connectedTold = false
    private var holderOutputs: [HolderOutput] = []
    /// The clock of the timeouts: when a reader showed up, whether it sent a message, and
    /// when the holder began to end the session.
    private var readerArrivedAt: ContinuousClock.Instant?
    private var messageReceived = false
    private var endingSince: ContinuousClock.Instant?

    init(
        _ setup: ProximityHolder, engagement: DeviceEngagement, eDeviceKey: PrivateKey,
        listener: (any MdocL2CAPListener)?, progress: @escaping @Sendable (TransferProgress) -> Void,
        observer: @escaping @Sendable (ProximitySessionEvent) -> Void
    ) throws {
        self.setup = setup
        self.engagement = engagement
        self.listener = listener
        self.progress = progress
        self.observer = observer
        holder = HolderSession(
            engagement: engagement, eDeviceKey: eDeviceKey, credentials: setup.credentials,
            configuration: setup.configuration)
        result = ProximitySessionResult(engagement: engagement, responsesSent: 0, records: [])
        (inputs, continuation) = AsyncStream<Input>.makeStream()
    }

    /// Runs the session to its end; throws when the only mode's link failed for good.
    func run() async throws -> ProximitySessionResult {
        let links = try await HolderLinks.open(
            setup, engagement: engagement, listener: listener, options: channelOptions)
        defer { cancelTasks() }
        if setup.server == nil {
            result.mode = .centralClient
        } else if setup.centralClient == nil {
            result.mode = .peripheralServer
        }
        observer(.advertising(engagement))
        do {
            guard let arrival = try await links.firstArrival() else {
                await release(links)
                return result
            }
            try await take(arrival, links)
        } catch {
            await release(links)
            throw error
        }
        startClock()
        for await input in inputs {
            await handle(input, links)
            while !holderOutputs.isEmpty { await route(holderOutputs.removeFirst()) }
            if isFinished { break }
        }
        result.responsesSent = holder.responsesSent
        await release(links)
        return result
    }

    /// How the GATT channels of the holder treat the link.
    private var channelOptions: GattMessageChannel.Options {
        GattMessageChannel.Options(
            maximumMessageSize: setup.configuration.maxMessageSize, maximumChunkSize: setup.maximumChunkSize,
            drainTimeout: setup.timeouts.drain, progress: progress)
    }

    // MARK: - The reader arrives

    /// Takes the first reader's way: our GATT service, our L2CAP channel, or the reader's
    /// service (its Ident checked; its L2CAP channel when asked for and served).
    private func take(_ arrival: ReaderArrival, _ links: HolderLinks) async throws {
        readerArrivedAt = .now
        switch arrival {
        case .gatt:
            result.mode = .peripheralServer
            if let gatt = links.gatt { use(gatt) }
        case .l2cap(let socket):
            result.mode = .peripheralServer
            useL2CAP(socket)
        case .central(let connection):
            result.mode = .centralClient
            try await useReaderService(connection)
        }
        if result.mode == .peripheralServer {
            // A reader that showed up on GATT may still open our L2CAP channel.
            let continuation = continuation
            tasks.append(
                Task { [arrivals = links.peripheralArrivals] in
                    for await arrival in arrivals {
                        if case .l2cap(let socket) = arrival { continuation.yield(.l2capConnected(socket)) }
                    }
                })
        }
    }

    /// Central-client mode, connected to the reader's service: with ``ProximityHolder/centralL2CAP``
    /// and the Ident matching, the reader's L2CAP channel when it serves one; else GATT (the
    /// channel reads and checks the Ident itself, then subscribes and writes State 0x01).
    private func useReaderService(_ connection: MdocGattConnection) async throws {
        guard let client = setup.centralClient else { return }
        let ident = BLEIdent(bytes: try BLEIdentDerivation.compute(eDeviceKeyBytes: engagement.eDeviceKeyBytes))
        if setup.centralL2CAP, let ident, let read = try? await client.readIdent(), ident.matches(read),
            let socket = try? await client.openL2CAP(psm: nil)
        {
            useL2CAP(socket)
            return
        }
        use(
            try await GattMessageChannel.connected(
                client, connection: connection, expectedIdent: ident, options: channelOptions))
    }

    private func useL2CAP(_ socket: any MdocL2CAPChannel) {
        result.overL2CAP = true
        tellConnected()
        use(L2CAPMessageChannel(channel: socket, maximumMessageSize: setup.configuration.maxMessageSize))
    }

    /// Makes `channel` the one in use: its events become inputs of this generation, and a
    /// GATT channel's start is told as the reader connecting.
    private func use(_ channel: any MessageChannel) {
        generation += 1
        self.channel = channel
        channelClosed = false
        let (continuation, generation) = (continuation, generation)
        tasks.append(
            Task {
                while let event = await channel.receive(timeout: nil) {
                    continuation.yield(.channel(event, generation: generation))
                    if case .closed = event { return }
                }
            })
        if let channel = channel as? GattMessageChannel {
            tasks.append(
                Task { [bound = setup.timeouts.session] in
                    if await channel.waitUntilStarted(timeout: bound) {
                        continuation.yield(.started(generation: generation))
                    }
                })
        }
    }

    /// A reader opened our L2CAP channel: taken only before a GATT session started, as a
    /// reader uses one or the other.
    private func l2capConnected(_ socket: any MdocL2CAPChannel, _ links: HolderLinks) async {
        guard !result.overL2CAP, await links.gatt?.hasStarted != true else {
            socket.close()
            return
        }
        if readerArrivedAt == nil { readerArrivedAt = .now }
        useL2CAP(socket)
    }

    // MARK: - Inputs

    private func handle(_ input: Input, _ links: HolderLinks) async {
        switch input {
        case .channel(let event, let generation):
            guard generation == self.generation, !channelClosed else { return }
            switch event {
            case .message(let message):
                // The start's own input may come after the first message.
                tellConnected()
                messageReceived = true
                holderOutputs += holder.receive(message, at: Date())
            case .closed(let reason):
                closed(reason)
            }
        case .started(let generation):
            if generation == self.generation { tellConnected() }
        case .l2capConnected(let socket):
            await l2capConnected(socket, links)
        case .decided(let decision):
            holderOutputs += holder.consent(decision)
        case .tick:
            await tick()
        }
    }

    private func tellConnected() {
        guard !connectedTold else { return }
        connectedTold = true
        observer(.readerConnected)
    }

    /// The channel in use is over for `reason` (the peer's end, a disconnect, a protocol
    /// error); the engine hears the transport closed.
    private func closed(_ reason: BLESessionEndReason) {
        guard !channelClosed else { return }
        channelClosed = true
        if result.transportEnd == nil { result.transportEnd = reason }
        holderOutputs += holder.transportClosed()
    }

    // MARK: - The clock

    private func startClock() {
        let continuation = continuation
        tasks.append(
            Task { [tickInterval = setup.tickInterval] in
                while !Task.isCancelled {
                    try? await Task.sleep(for: tickInterval)
                    continuation.yield(.tick)
                }
            })
    }

    private func tick() async {
        let now = ContinuousClock.now
        holderOutputs += holder.tick(at: Date())
        let drain = setup.timeouts.drain
        let waiting = await channel?.outputWaitingSince
        if [waiting, endingSince].contains(where: { $0.map { now - $0 >= drain } ?? false }) {
            // The reader does not take what is queued (it never subscribed, or stopped
            // reading), or the link outlives the session: drop it.
            result.timedOut = result.timedOut ?? .drain
            await dropLink()
        } else if endingSince == nil, let arrived = readerArrivedAt {
            let elapsed = now - arrived
            let timeouts = setup.timeouts
            let limit: ProximityTimeout? =
                !messageReceived && elapsed >= timeouts.firstRequest
                ? .firstRequest : elapsed >= timeouts.session ? .session : nil
            if let limit {
                result.timedOut = limit
                endingSince = now
                let ending = holder.end()
                holderOutputs += ending
                // The engine had already ended, or never started: end the link the same way.
                if ending.isEmpty { await endLink(readerEnded: false) }
            }
        }
    }

    /// Cuts the link now: the transport closed as far as the engine knows.
    private func dropLink() async {
        await channel?.drop()
        closed(.disconnected)
    }

    // MARK: - Outputs

    private func route(_ output: HolderOutput) async {
        switch output {
        case .send(let bytes):
            await send(bytes)
        case .consentNeeded(let request):
            let (prompt, continuation) = (setup.consent, continuation)
            consentTask = Task {
                let decision = await prompt.decide(request)
                continuation.yield(.decided(decision))
            }
        case .responded(let records):
            result.records += records
            observer(.responded(records))
        case .requestReceived(let docTypes, let requester):
            observer(.requestReceived(docTypes: docTypes, requester: requester))
        case .terminated(let reason):
            result.holderEnd = reason
            if endingSince == nil { endingSince = .now }
            await endLink(readerEnded: reason == .readerEnded)
        }
    }

    /// Ends the session on the link. L2CAP, which has no State, closes the channel. On GATT
    /// what is queued drains and State 0x02 follows, within the drain bound (past it the link
    /// is dropped), unless the reader ended the session (status 20): it disconnects, and the
    /// link is let go when the loop ends.
    private func endLink(readerEnded: Bool) async {
        guard let channel, !channelClosed else { return }
        if result.overL2CAP {
            if result.transportEnd == nil { result.transportEnd = readerEnded ? .peerEnded : .localEnded }
            channelClosed = true
            await channel.close()
        } else if !readerEnded {
            let began = ContinuousClock.now
            let reason = await channel.close()
            if !reason.isOrderly, ContinuousClock.now - began >= setup.timeouts.drain {
                result.timedOut = result.timedOut ?? .drain
            }
            closed(reason)
        }
    }

    /// Sends a message. GATT queues it (its chunks go out as the reader takes them, the clock
    /// watches it wait); on L2CAP a reader that stops reading blocks the socket, so after the
    /// drain bound the channel is closed (which ends the send) and the link is dropped.
    private func send(_ message: [UInt8]) async {
        guard let channel, !channelClosed else { return }
        guard result.overL2CAP else {
            if (try? await channel.send(message)) == nil { closed(.disconnected) }
            return
        }
        let watchdog = Task { [limit = setup.timeouts.drain] in
            do {
                try await Task.sleep(for: limit)
            } catch {
                return false
            }
            await channel.close()
            return true
        }
        let sent = (try? await channel.send(message)) != nil
        watchdog.cancel()
        if await watchdog.value {
            result.timedOut = result.timedOut ?? .drain
            await dropLink()
        } else if !sent {
            closed(.disconnected)
        }
    }

    // MARK: - The end

    /// Whether the session is over: the link closed (or was dropped), or the reader ended it
    /// (status 20: it disconnects, nothing more is said).
    private var isFinished: Bool {
        channelClosed || (holder.isEnded && result.holderEnd == .readerEnded)
    }

    private func release(_ links: HolderLinks) async {
        await channel?.drop()
        await links.release()
        continuation.finish()
    }

    private func cancelTasks() {
        for task in tasks { task.cancel() }
        consentTask?.cancel()
    }
}

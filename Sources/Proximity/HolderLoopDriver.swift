import BLETransport
import Consent
import FoundationEssentials
import ISO18013
import MdocCrypto
import Presentation

/// Runs a ``HolderLoop`` against the real links: waits for the first reader in the offered
/// modes (``HolderLinks``), feeds the loop the channel's events, the consent prompt's answers
/// and the clock, and carries out its actions.
///
/// Lives in the task that runs the session, never shared: its state is plain properties.
final class HolderLoopDriver {
    /// What the driver's tasks report: an input of the loop, or one the driver first
    /// completes (the L2CAP channel offered, the channel's waiting output at a tick).
    private enum Event: Sendable {
        case input(HolderLoop.Input)
        case l2capOffered(any MdocL2CAPChannel)
        case tick
    }

    let setup: ProximityHolder
    let listener: (any MdocL2CAPListener)?
    let progress: @Sendable (TransferProgress) -> Void
    let observer: @Sendable (ProximitySessionEvent) -> Void
    private var loop: HolderLoop
    private let events: AsyncStream<Event>
    private let continuation: AsyncStream<Event>.Continuation
    private var tasks: [Task<Void, Never>] = []
    private var consentTask: Task<Void, Never>?
    /// The channel messages go over: our GATT service's, replaced by an L2CAP channel a
    /// reader opens before it starts a GATT session.
    private var channel: (any MessageChannel)?

    init(
        _ setup: ProximityHolder, engagement: DeviceEngagement, eDeviceKey: PrivateKey,
        listener: (any MdocL2CAPListener)?, progress: @escaping @Sendable (TransferProgress) -> Void,
        observer: @escaping @Sendable (ProximitySessionEvent) -> Void
    ) {
        self.setup = setup
        self.listener = listener
        self.progress = progress
        self.observer = observer
        let holder = HolderSession(
            engagement: engagement, eDeviceKey: eDeviceKey, credentials: setup.credentials,
            configuration: setup.configuration)
        var modes: Set<ProximityMode> = []
        if setup.server != nil { modes.insert(.peripheralServer) }
        if setup.centralClient != nil { modes.insert(.centralClient) }
        loop = HolderLoop(holder: holder, timeouts: setup.timeouts, modes: modes)
        (events, continuation) = AsyncStream<Event>.makeStream()
    }

    /// Why L2CAP was not offered although asked for.
    func setL2CAPUnavailable(_ why: String?) { loop.setL2CAPUnavailable(why) }

    /// Runs the session to its end; throws when the only mode's link failed for good.
    func run() async throws -> ProximitySessionResult {
        let links = try await HolderLinks.open(
            setup, engagement: loop.engagement, listener: listener, options: channelOptions)
        defer { cancelTasks() }
        await feed(.advertising)
        do {
            guard let arrival = try await links.firstArrival() else {
                await release(links)
                return loop.result
            }
            try await take(arrival, links)
        } catch {
            await release(links)
            throw error
        }
        startClock()
        for await event in events {
            switch event {
            case .input(let input):
                await feed(input)
            case .l2capOffered(let socket):
                let gattStarted = await links.gatt?.hasStarted == true
                await perform(loop.handle(.l2capOffered(gattStarted: gattStarted), at: .now), offered: socket)
            case .tick:
                await feed(.tick(outputWaitingSince: await channel?.outputWaitingSince))
            }
            if loop.isFinished { break }
        }
        await release(links)
        return loop.result
    }

    /// How the GATT channels of the holder treat the link.
    private var channelOptions: GattMessageChannel.Options {
        GattMessageChannel.Options(
            maximumMessageSize: setup.configuration.maxMessageSize, maximumChunkSize: setup.maximumChunkSize,
            drainTimeout: setup.timeouts.drain, progress: progress)
    }

    // MARK: - The reader arrives

    /// Takes the first reader's way: our GATT service, our L2CAP channel, or the reader's
    /// service (its Ident checked; its L2CAP channel when asked for and served). A reader
    /// that showed up at our GATT service may still open our L2CAP channel.
    private func take(_ arrival: ReaderArrival, _ links: HolderLinks) async throws {
        switch arrival {
        case .gatt:
            await feed(.readerArrived(.peripheralServer))
            if let gatt = links.gatt { await use(gatt, overL2CAP: false) }
        case .l2cap(let socket):
            await feed(.readerArrived(.peripheralServer))
            await use(l2cap(socket), overL2CAP: true)
        case .central(let connection):
            await feed(.readerArrived(.centralClient))
            try await useReaderService(connection)
            return
        }
        let continuation = continuation
        tasks.append(
            Task { [arrivals = links.peripheralArrivals] in
                for await arrival in arrivals {
                    if case .l2cap(let socket) = arrival { continuation.yield(.l2capOffered(socket)) }
                }
            })
    }

    /// Central-client mode, connected to the reader's service: with ``ProximityHolder/centralL2CAP``
    /// and the Ident matching, the reader's L2CAP channel when it serves one; else GATT (the
    /// channel reads and checks the Ident itself, then subscribes and writes State 0x01).
    private func useReaderService(_ connection: MdocGattConnection) async throws {
        guard let client = setup.centralClient else { return }
        let ident = BLEIdent(bytes: try BLEIdentDerivation.compute(eDeviceKeyBytes: loop.engagement.eDeviceKeyBytes))
        if setup.centralL2CAP, let ident, let read = try? await client.readIdent(), ident.matches(read),
            let socket = try? await client.openL2CAP(psm: nil)
        {
            await use(l2cap(socket), overL2CAP: true)
            return
        }
        let gatt = try await GattMessageChannel.connected(
            client, connection: connection, expectedIdent: ident, options: channelOptions)
        await use(gatt, overL2CAP: false)
    }

    private func l2cap(_ socket: any MdocL2CAPChannel) -> L2CAPMessageChannel {
        L2CAPMessageChannel(
            channel: socket, maximumMessageSize: setup.configuration.maxMessageSize, drainTimeout: setup.timeouts.drain)
    }

    /// Makes `channel` the one in use: its events become inputs of its generation, and a
    /// GATT channel's start is told as the reader connecting.
    private func use(_ channel: any MessageChannel, overL2CAP: Bool) async {
        self.channel = channel
        await feed(.channelOpened(overL2CAP: overL2CAP))
        let (continuation, generation) = (continuation, loop.generation)
        tasks.append(
            Task {
                while let event = await channel.receive(timeout: nil) {
                    continuation.yield(.input(.channel(event, generation: generation)))
                    if case .closed = event { return }
                }
            })
        if let gatt = channel as? GattMessageChannel {
            tasks.append(
                Task { [bound = setup.timeouts.session] in
                    if await gatt.waitUntilStarted(timeout: bound) {
                        continuation.yield(.input(.started(generation: generation)))
                    }
                })
        }
    }

    // MARK: - The loop's actions

    private func feed(_ input: HolderLoop.Input) async {
        await perform(loop.handle(input, at: .now))
    }

    /// Carries out `actions` in order; what the loop answers to their results follows them.
    private func perform(_ actions: [HolderLoop.Action], offered socket: (any MdocL2CAPChannel)? = nil) async {
        var queue = actions[...]
        while let action = queue.popFirst() {
            switch action {
            case .send(let bytes):
                if let channel, (try? await channel.send(bytes)) == nil {
                    queue += loop.handle(.sendFailed, at: .now)
                }
            case .close:
                let began = ContinuousClock.now
                let reason = await channel?.close() ?? .localEnded
                queue += loop.handle(.closeFinished(reason, began: began), at: .now)
            case .drop:
                await channel?.drop()
            case .acceptL2CAP:
                if let socket { await use(l2cap(socket), overL2CAP: true) }
            case .refuseL2CAP:
                socket?.close()
            case .askConsent(let request):
                let (prompt, continuation) = (setup.consent, continuation)
                consentTask = Task {
                    let decision = await prompt.decide(request)
                    continuation.yield(.input(.decided(decision)))
                }
            case .report(let event):
                observer(event)
            }
        }
    }

    // MARK: - The clock and the end

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

import BLETransport
import Consent
import Foundation
import ISO18013
import MdocCrypto
import Presentation

/// One session of ``ProximityHolder``: the links of the offered modes race (the first
/// reader to show up on either decides, the other is closed), then messages move between
/// the link in use (GATT through a ``BLESession``, or the L2CAP channel) and the holder
/// engine, with consent, the clock and the transport bounds (``ProximityTimeouts``).
///
/// Lives in the task that runs the session, never shared: its state is plain properties.
final class HolderLoop {
    /// Inputs of the loop, from the links, the consent prompt and the clock.
    enum Input: Sendable {
        case gatt(MdocGattEvent)
        case gattClosed
        case centralConnected(MdocGattConnection)
        case centralFailed(any Error)
        case central(MdocGattClientEvent)
        case identRead(Result<[UInt8]?, any Error>)
        case l2capConnected(any MdocL2CAPChannel)
        case l2cap(MessageChannelEvent)
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
    private var centralTask: Task<Void, Never>?
    private var consentTask: Task<Void, Never>?

    /// The BLE session of the mode in use; with one mode offered it is chosen at once.
    private var ble: BLESession?
    private var mode: ProximityMode?
    /// The L2CAP channel, once a reader connected to it; then GATT carries nothing more.
    private var l2cap: L2CAPMessageChannel?
    private var l2capDone = false
    /// Work queues: BLE outputs to carry out, engine outputs to route.
    private var bleOutputs: [BLESessionOutput] = []
    private var holderOutputs: [HolderOutput] = []
    private var failure: (any Error)?
    /// The clock of the timeouts: when a reader showed up, whether it sent a message, when
    /// the holder began to end the session, since when a message of the holder waits with no
    /// chunk going out, and whether the link was cut for good.
    private var readerArrivedAt: Date?
    private var messageReceived = false
    private var endingSince: Date?
    private var outputStalledSince: Date?
    private var linkDropped = false

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
        defer { cancelTasks() }
        try await start()
        for await input in inputs {
            try await handle(input)
            if failure != nil { break }
            await carryOut()
            noteStall()
            if isFinished { break }
        }
        result.responsesSent = holder.responsesSent
        await release()
        if let failure { throw failure }
        return result
    }

    // MARK: - Start and end

    /// Serves our service, scans for the reader's, listens on L2CAP, starts the clock.
    private func start() async throws {
        let continuation = continuation
        let options = engagement.bleOptions
        if let server = setup.server, let uuid = options?.peripheralServerUUID.flatMap({ BluetoothUUID(bytes: $0) }) {
            let events = try await server.start(.peripheralServer(uuid, l2capPSM: listener?.psm))
            tasks.append(
                Task {
                    for await event in events { continuation.yield(.gatt(event)) }
                    continuation.yield(.gattClosed)
                })
        }
        if let client = setup.centralClient, let uuid = options?.centralClientUUID.flatMap({ BluetoothUUID(bytes: $0) })
        {
            centralTask = Task {
                do {
                    let connection = try await client.connect(
                        serviceUUID: uuid, characteristics: MdocBluetoothUUIDs.centralClient)
                    continuation.yield(.centralConnected(connection))
                    for await event in connection.events { continuation.yield(.central(event)) }
                    continuation.yield(.central(.disconnected))
                } catch {
                    if !Task.isCancelled { continuation.yield(.centralFailed(error)) }
                }
            }
        }
        if let listener {
            tasks.append(
                Task {
                    if let channel = try? await listener.accept() { continuation.yield(.l2capConnected(channel)) }
                })
        }
        if setup.server == nil {
            try choose(.centralClient)
        } else if setup.centralClient == nil {
            try choose(.peripheralServer)
        }
        observer(.advertising(engagement))
        tasks.append(
            Task { [tickInterval = setup.tickInterval] in
                while !Task.isCancelled {
                    try? await Task.sleep(for: tickInterval)
                    continuation.yield(.tick)
                }
            })
    }

    /// Whether the session is over: the link dropped or ended, or the engine ended in a way
    /// that leaves the link nothing to do.
    private var isFinished: Bool {
        linkDropped || l2capDone || (l2cap == nil && ble?.isEnded == true)
            || (holder.isEnded && (result.holderEnd == .readerEnded || ble == nil))
    }

    private func release() async {
        await l2cap?.close()
        listener?.close()
        centralTask?.cancel()
        await setup.server?.stop()
        await setup.centralClient?.disconnect()
        continuation.finish()
    }

    private func cancelTasks() {
        for task in tasks { task.cancel() }
        centralTask?.cancel()
        consentTask?.cancel()
    }

    // MARK: - The mode race

    /// The mode the reader uses: its BLE session (the Ident derived from our engagement
    /// when we are the GATT client).
    private func choose(_ chosen: ProximityMode) throws {
        let limit = setup.configuration.maxMessageSize
        switch chosen {
        case .peripheralServer:
            ble = try BLESession(role: .gattServer, maximumMessageSize: limit)
        case .centralClient:
            let ident = try BLEIdentDerivation.compute(eDeviceKeyBytes: engagement.eDeviceKeyBytes)
            ble = try BLESession(role: .gattClient(expectedIdent: BLEIdent(bytes: ident)), maximumMessageSize: limit)
        }
        mode = chosen
        result.mode = chosen
    }

    /// A reader came to our GATT service or L2CAP channel first: stop scanning for its.
    private func peripheralWins() async throws {
        guard mode == nil else { return }
        try choose(.peripheralServer)
        centralTask?.cancel()
        await setup.centralClient?.disconnect()
    }

    private func readerArrived() {
        if readerArrivedAt == nil { readerArrivedAt = Date() }
    }

    // MARK: - Inputs

    private func handle(_ input: Input) async throws {
        switch input {
        case .gatt(let event):
            guard l2cap == nil else { return }
            readerArrived()
            try await peripheralWins()
            guard mode == .peripheralServer, let event = BLESessionEvent(event) else { return }
            feed(event)
        case .gattClosed:
            if mode == .peripheralServer { feed(.disconnected) }
        case .centralConnected(let connection):
            try await centralConnected(connection)
        case .centralFailed(let error):
            // Scanning or connecting failed for good: with no other mode, so does the session.
            if mode == .centralClient || setup.server == nil { failure = error }
        case .identRead(let read):
            feed(.identRead((try? read.get()) ?? nil))
        case .central(let event):
            guard mode == .centralClient, l2cap == nil, let event = BLESessionEvent(event) else { return }
            feed(event)
        case .l2capConnected(let channel):
            try await l2capConnected(channel)
        case .l2cap(let event):
            l2capEvent(event)
        case .decided(let decision):
            holderOutputs += holder.consent(decision)
        case .tick:
            await tick()
        }
    }

    private func centralConnected(_ connection: MdocGattConnection) async throws {
        readerArrived()
        if mode == nil {
            // We reached the reader's service first: stop serving ours.
            try choose(.centralClient)
            await setup.server?.stop()
        }
        guard mode == .centralClient, let client = setup.centralClient else { return }
        if let mtu = connection.mtu { feed(.mtuChanged(mtu)) }
        let continuation = continuation
        tasks.append(
            Task {
                do {
                    continuation.yield(.identRead(.success(try await client.readIdent())))
                } catch {
                    continuation.yield(.identRead(.failure(error)))
                }
            })
    }

    /// A reader opened the L2CAP channel (ours, or the reader's that we opened): only before
    /// a GATT session started, as a reader uses one or the other.
    private func l2capConnected(_ channel: any MdocL2CAPChannel) async throws {
        guard l2cap == nil, ble.map({ !$0.hasStarted }) ?? true else {
            channel.close()
            return
        }
        try await peripheralWins()
        readerArrived()
        let messages = L2CAPMessageChannel(channel: channel, maximumMessageSize: setup.configuration.maxMessageSize)
        l2cap = messages
        result.overL2CAP = true
        observer(.readerConnected)
        let continuation = continuation
        tasks.append(
            Task {
                while let event = await messages.receive(timeout: nil) {
                    continuation.yield(.l2cap(event))
                    if case .closed = event { return }
                }
            })
    }

    private func l2capEvent(_ event: MessageChannelEvent) {
        guard !l2capDone else { return }
        switch event {
        case .message(let message):
            holderOutputs += receive(message)
        case .closed(let reason):
            // A zero-length frame (the reader ends), a frame over the limit, or the channel
            // closing.
            l2capClosed(reason)
        }
    }

    /// The L2CAP session is over for `reason`; the engine hears the transport closed.
    private func l2capClosed(_ reason: BLESessionEndReason) {
        guard !l2capDone else { return }
        l2capDone = true
        result.transportEnd = reason
        holderOutputs += holder.transportClosed()
    }

    private func receive(_ message: [UInt8]) -> [HolderOutput] {
        messageReceived = true
        return holder.receive(message, at: Date())
    }

    private func feed(_ event: BLESessionEvent) {
        guard ble != nil else { return }
        if case .mtuChanged(let mtu) = event, let cap = setup.maximumChunkSize {
            // A chunk is at most MTU - 3 bytes: an MTU of cap + 3 caps it.
            bleOutputs += ble!.handle(.mtuChanged(min(mtu, cap + 3)))
            return
        }
        bleOutputs += ble!.handle(event)
    }

    // MARK: - The clock

    private func tick() async {
        let now = Date()
        holderOutputs += holder.tick(at: now)
        let drain = setup.timeouts.drain.timeInterval
        let drained = { (since: Date?) in since.map { now.timeIntervalSince($0) >= drain } ?? false }
        if drained(outputStalledSince) || drained(endingSince) {
            // The reader does not take what is queued (it never subscribed, or stopped
            // reading), or the link outlives the session: drop it.
            result.timedOut = result.timedOut ?? .drain
            linkDropped = true
            if let l2cap {
                if !l2capDone {
                    l2capClosed(.disconnected)
                    await l2cap.close()
                }
            } else {
                feed(.disconnected)
            }
        } else if endingSince == nil, let arrived = readerArrivedAt {
            let elapsed = now.timeIntervalSince(arrived)
            let timeouts = setup.timeouts
            let limit: ProximityTimeout? =
                !messageReceived && elapsed >= timeouts.firstRequest.timeInterval
                ? .firstRequest : elapsed >= timeouts.session.timeInterval ? .session : nil
            if let limit {
                result.timedOut = limit
                endingSince = now
                let ending = holder.end()
                holderOutputs += ending
                // The engine had already ended: end the link the same way.
                if ending.isEmpty, l2cap == nil { feed(.end) }
            }
        }
    }

    /// Since when a message of ours waits with no chunk going out (GATT only).
    private func noteStall() {
        if ble?.hasPendingOutput == true, l2cap == nil {
            if outputStalledSince == nil { outputStalledSince = Date() }
        } else {
            outputStalledSince = nil
        }
    }

    // MARK: - Outputs

    /// Carries out everything the two state machines asked for, until both are quiet.
    private func carryOut() async {
        while !bleOutputs.isEmpty || !holderOutputs.isEmpty {
            while !holderOutputs.isEmpty {
                await route(holderOutputs.removeFirst())
            }
            if !bleOutputs.isEmpty {
                await perform(bleOutputs.removeFirst())
            }
        }
    }

    private func route(_ output: HolderOutput) async {
        switch output {
        case .send(let bytes):
            if let l2cap {
                await send(bytes, on: l2cap)
            } else {
                feed(.send(bytes))
            }
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
            await terminated(reason)
        }
    }

    /// The engine ended. The reader ended (status 20): it will disconnect; otherwise the
    /// queued SessionData drains and State 0x02 follows (on L2CAP, which has no State, the
    /// channel closes).
    private func terminated(_ reason: TerminationReason) async {
        result.holderEnd = reason
        if endingSince == nil { endingSince = Date() }
        if let l2cap {
            if !l2capDone {
                l2capDone = true
                result.transportEnd = reason == .readerEnded ? .peerEnded : .localEnded
                await l2cap.close()
            }
        } else if reason != .readerEnded {
            feed(.end)
        }
    }

    /// Sends on the L2CAP channel; a reader that stops reading blocks the socket, so after
    /// the drain bound the channel is closed (which ends the send) and the link is dropped.
    private func send(_ message: [UInt8], on channel: L2CAPMessageChannel) async {
        let limit = setup.timeouts.drain
        let watchdog = Task {
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
            linkDropped = true
            l2capClosed(.disconnected)
        } else if !sent {
            l2capClosed(.disconnected)
        }
    }

    private func perform(_ output: BLESessionOutput) async {
        switch output {
        case .messageReceived(let message):
            holderOutputs += receive(message)
        case .sendChunk(let chunk):
            do {
                try await link?.sendChunk(chunk)
                outputStalledSince = Date()
                feed(.chunkSent)
            } catch {
                feed(.disconnected)
            }
        case .sendState(let state):
            try? await link?.sendState(state)
        case .identVerified:
            await identVerified()
        case .progress(let p):
            progress(p)
        case .sessionStarted:
            observer(.readerConnected)
        case .sessionEnded(let reason, _):
            result.transportEnd = reason
            holderOutputs += holder.transportClosed()
        }
    }

    /// The reader's Ident matched: its L2CAP channel when asked for and served, else
    /// subscribe to its characteristics.
    private func identVerified() async {
        guard let client = setup.centralClient else { return }
        if setup.centralL2CAP, let channel = try? await client.openL2CAP(psm: nil) {
            continuation.yield(.l2capConnected(channel))
            return
        }
        do {
            try await client.subscribe()
            feed(.subscribed)
        } catch {
            feed(.disconnected)
        }
    }

    /// The GATT link of the mode in use.
    private var link: GattLink? {
        switch mode {
        case .peripheralServer?: return setup.server.map { .server($0) }
        case .centralClient?: return setup.centralClient.map { .client($0) }
        case nil: return nil
        }
    }
}

import BLETransport
import Consent
import Foundation
import ISO18013
import MdocCrypto
import Presentation

/// How one proximity session ended, for the command line and the history.
public struct ProximitySessionResult: Sendable {
    /// The engagement that was shown.
    public var engagement: DeviceEngagement
    public var transportEnd: BLESessionEndReason?
    public var holderEnd: TerminationReason?
    public var responsesSent: Int
    public var records: [PresentationRecord]
    /// The BLE mode the reader used; nil when no reader came.
    public var mode: ProximityMode?
    /// The reader used the L2CAP channel (peripheral-server mode) instead of GATT messages.
    public var overL2CAP = false
    /// Why L2CAP was not offered although asked for (GATT was used).
    public var l2capUnavailable: String?
    /// The transport bound that ended the session, when one did (``ProximityTimeouts``).
    public var timedOut: ProximityTimeout?

    /// A presentation happened: at least one response went out and nothing failed before
    /// it was delivered.
    public var isSuccess: Bool {
        guard responsesSent > 0 else { return false }
        switch transportEnd {
        case .disconnected?, .protocolError?: return false
        default: return true
        }
    }
}

/// The holder's proximity loop: a fresh engagement, the BLE link in the modes it offers
/// (mdoc peripheral-server: our GATT service; mdoc central-client: the reader's), the BLE
/// framing, the holder engine and the consent prompt, until the session ends. With both
/// modes offered, the first reader to show up on either decides and the other is closed.
/// One instance serves one session at a time.
public struct ProximityHolder: Sendable {
    /// Peripheral-server mode, when offered.
    public let server: (any MdocGattServer)?
    /// Central-client mode, when offered.
    public let centralClient: (any MdocGattClient)?
    public let credentials: [PresentableCredential]
    public let configuration: HolderConfiguration
    public let consent: any ConsentPrompt
    /// How often timeouts are checked.
    public var tickInterval: Duration = .milliseconds(500)
    /// Bounds on the session measured on the link, whatever the reader does.
    public var timeouts = ProximityTimeouts()
    /// The largest BLE chunk (header byte included) to send, below min(512, ATT MTU - 3):
    /// for a controller that loses ATT packets larger than its ACL buffers (the VM tier's
    /// btvirt, as a central). Nil: the standard's size.
    public var maximumChunkSize: Int?
    /// Central-client mode: use the reader's L2CAP channel when its service has the L2CAP PSM
    /// characteristic (after the Ident matched); GATT when it has none or the channel does
    /// not open.
    public var centralL2CAP = false
    /// Opens an L2CAP listener for a session in peripheral-server mode: its PSM goes into
    /// the engagement (key 21) and the PSM characteristic, and a reader that connects to it
    /// exchanges framed messages there instead of GATT chunks. Nil: GATT only. When it throws
    /// (a kernel without Bluetooth sockets), the session offers GATT only.
    public var l2capListener: (@Sendable () throws -> any MdocL2CAPListener)?

    /// Peripheral-server mode only.
    public init(
        server: any MdocGattServer, credentials: [PresentableCredential], configuration: HolderConfiguration,
        consent: any ConsentPrompt
    ) {
        self.init(
            server: server, centralClient: nil, credentials: credentials, configuration: configuration,
            consent: consent)
    }

    /// The modes whose link is given; at least one must be.
    public init(
        server: (any MdocGattServer)?, centralClient: (any MdocGattClient)?, credentials: [PresentableCredential],
        configuration: HolderConfiguration, consent: any ConsentPrompt
    ) {
        precondition(server != nil || centralClient != nil, "ProximityHolder needs a GATT server or client")
        self.server = server
        self.centralClient = centralClient
        self.credentials = credentials
        self.configuration = configuration
        self.consent = consent
    }

    /// Inputs of the loop, from the links, the consent prompt and the clock.
    private enum Input: Sendable {
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

    /// Runs one session. `showEngagement` gets the engagement (to print its QR code) before
    /// the service is registered or the scan starts; `progress` gets the outgoing transfer's
    /// progress; `observer` gets the session's milestones (``ProximitySessionEvent``) as they
    /// happen.
    public func runSession(
        showEngagement: @Sendable (DeviceEngagement) -> Void,
        progress: @escaping @Sendable (TransferProgress) -> Void = { _ in },
        observer: @escaping @Sendable (ProximitySessionEvent) -> Void = { _ in }
    ) async throws -> ProximitySessionResult {
        let eDeviceKey = try PrivateKey.generate(.p256)
        var l2capUnavailable: String?
        var listener: (any MdocL2CAPListener)?
        if server != nil, let open = l2capListener {
            do {
                listener = try open()
            } catch {
                l2capUnavailable = "\(error)"
            }
        }
        defer { listener?.close() }
        let peripheralUUID = server == nil ? nil : BLEUUID(bytes: SecureRandom.bytes(16))!
        let centralUUID = centralClient == nil ? nil : BLEUUID(bytes: SecureRandom.bytes(16))!
        let engagement = DeviceEngagement(
            eDeviceKey: eDeviceKey.publicKey,
            retrievalMethods: [
                .ble(
                    version: 1,
                    BleOptions(
                        peripheralServerMode: peripheralUUID != nil, centralClientMode: centralUUID != nil,
                        peripheralServerUUID: peripheralUUID?.bytes, centralClientUUID: centralUUID?.bytes,
                        l2capPSM: listener.map { UInt64($0.psm) }))
            ])
        var holder = HolderSession(
            engagement: engagement, eDeviceKey: eDeviceKey, credentials: credentials, configuration: configuration)
        var result = ProximitySessionResult(engagement: engagement, responsesSent: 0, records: [])
        result.l2capUnavailable = l2capUnavailable
        // The L2CAP channel, once a reader connected to it; then GATT carries nothing more.
        var l2cap: L2CAPMessageChannel?
        var l2capDone = false
        // The BLE session of the mode in use; with one mode offered it is chosen at once.
        var ble: BLESession?
        var mode: ProximityMode?
        func choose(_ chosen: ProximityMode) throws {
            switch chosen {
            case .peripheralServer:
                ble = try BLESession(role: .gattServer, maximumMessageSize: configuration.maxMessageSize)
            case .centralClient:
                let ident = try BLEIdentDerivation.compute(eDeviceKeyBytes: engagement.eDeviceKeyBytes)
                ble = try BLESession(
                    role: .gattClient(expectedIdent: BLEIdent(bytes: ident)!),
                    maximumMessageSize: configuration.maxMessageSize)
            }
            mode = chosen
            result.mode = chosen
        }

        showEngagement(engagement)
        let (inputs, continuation) = AsyncStream<Input>.makeStream()
        var tasks: [Task<Void, Never>] = []
        var centralTask: Task<Void, Never>?
        defer {
            for task in tasks { task.cancel() }
            centralTask?.cancel()
        }
        if let server, let peripheralUUID {
            let events = try await server.start(.peripheralServer(peripheralUUID, l2capPSM: listener?.psm))
            tasks.append(
                Task {
                    for await event in events { continuation.yield(.gatt(event)) }
                    continuation.yield(.gattClosed)
                })
        }
        if let centralClient, let centralUUID {
            centralTask = Task {
                do {
                    let connection = try await centralClient.connect(
                        serviceUUID: centralUUID, characteristics: MdocBLEUUIDs.centralClient)
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
        if server == nil { try choose(.centralClient) } else if centralClient == nil { try choose(.peripheralServer) }
        observer(.advertising(engagement))
        tasks.append(
            Task { [tickInterval] in
                while !Task.isCancelled {
                    try? await Task.sleep(for: tickInterval)
                    continuation.yield(.tick)
                }
            })
        var consentTask: Task<Void, Never>?
        defer { consentTask?.cancel() }

        // Work queues: BLE outputs to carry out, engine outputs to route.
        var bleOutputs: [BLESessionOutput] = []
        var holderOutputs: [HolderOutput] = []
        var failure: (any Error)?
        // The clock of ``timeouts``: when a reader showed up, whether it sent a message, when
        // the holder began to end the session, and whether the link was cut for good.
        var readerArrivedAt: Date?
        var messageReceived = false
        var endingSince: Date?
        // Since when a message of the holder waits with no chunk going out.
        var outputStalledSince: Date?
        var linkDropped = false
        func readerArrived() {
            if readerArrivedAt == nil { readerArrivedAt = Date() }
        }
        func receive(_ message: [UInt8]) -> [HolderOutput] {
            messageReceived = true
            return holder.receive(message, at: Date())
        }

        func feed(_ event: BLESessionEvent) {
            guard ble != nil else { return }
            if case .mtuChanged(let mtu) = event, let cap = maximumChunkSize {
                // A chunk is at most MTU - 3 bytes: an MTU of cap + 3 caps it.
                bleOutputs += ble!.handle(.mtuChanged(min(mtu, cap + 3)))
                return
            }
            bleOutputs += ble!.handle(event)
        }

        loop: for await input in inputs {
            switch input {
            case .gatt(let event):
                guard l2cap == nil else { break }
                readerArrived()
                if mode == nil {
                    // A reader came to our GATT service first: stop scanning for its.
                    try choose(.peripheralServer)
                    centralTask?.cancel()
                    await centralClient?.disconnect()
                }
                guard mode == .peripheralServer, let event = BLESessionEvent(event) else { break }
                feed(event)
            case .gattClosed:
                if mode == .peripheralServer { feed(.disconnected) }
            case .centralConnected(let connection):
                readerArrived()
                if mode == nil {
                    // We reached the reader's service first: stop serving ours.
                    try choose(.centralClient)
                    await server?.stop()
                }
                guard mode == .centralClient, let centralClient else { break }
                if let mtu = connection.mtu { feed(.mtuChanged(mtu)) }
                tasks.append(
                    Task {
                        do {
                            continuation.yield(.identRead(.success(try await centralClient.readIdent())))
                        } catch {
                            continuation.yield(.identRead(.failure(error)))
                        }
                    })
            case .centralFailed(let error):
                // Scanning or connecting failed for good: with no other mode, so does the session.
                if mode == .centralClient || server == nil {
                    failure = error
                    break loop
                }
            case .identRead(let read):
                switch read {
                case .success(let value): feed(.identRead(value))
                case .failure: feed(.identRead(nil))
                }
            case .central(let event):
                guard mode == .centralClient, l2cap == nil, let event = BLESessionEvent(event) else { break }
                feed(event)
            case .l2capConnected(let channel):
                // Only before a GATT session started: a reader uses one or the other.
                guard l2cap == nil, ble.map({ !$0.hasStarted }) ?? true else {
                    channel.close()
                    break
                }
                if mode == nil {
                    try choose(.peripheralServer)
                    centralTask?.cancel()
                    await centralClient?.disconnect()
                }
                readerArrived()
                let messages = L2CAPMessageChannel(channel: channel, maximumMessageSize: configuration.maxMessageSize)
                l2cap = messages
                result.overL2CAP = true
                observer(.readerConnected)
                tasks.append(
                    Task {
                        while let event = await messages.receive(timeout: nil) {
                            continuation.yield(.l2cap(event))
                            if case .closed = event { return }
                        }
                    })
            case .l2cap(let event):
                guard !l2capDone else { break }
                switch event {
                case .message(let message):
                    holderOutputs += receive(message)
                case .closed(let reason):
                    // A zero-length frame (the reader ends), a frame over the limit, or the
                    // channel closing.
                    l2capDone = true
                    result.transportEnd = reason
                    holderOutputs += holder.transportClosed()
                }
            case .decided(let decision):
                holderOutputs += holder.consent(decision)
            case .tick:
                let now = Date()
                holderOutputs += holder.tick(at: now)
                let drain = timeouts.drain.timeInterval
                let drained = { (since: Date?) in since.map { now.timeIntervalSince($0) >= drain } ?? false }
                if drained(outputStalledSince) || drained(endingSince) {
                    // The reader does not take what is queued (it never subscribed, or
                    // stopped reading), or the link outlives the session: drop it.
                    result.timedOut = result.timedOut ?? .drain
                    linkDropped = true
                    if let l2cap {
                        if !l2capDone {
                            l2capDone = true
                            result.transportEnd = .disconnected
                            holderOutputs += holder.transportClosed()
                            await l2cap.close()
                        }
                    } else {
                        feed(.disconnected)
                    }
                } else if endingSince == nil, let arrived = readerArrivedAt {
                    let elapsed = now.timeIntervalSince(arrived)
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

            // Carry out everything the two state machines asked for, until both are quiet.
            while !bleOutputs.isEmpty || !holderOutputs.isEmpty {
                while !holderOutputs.isEmpty {
                    switch holderOutputs.removeFirst() {
                    case .send(let bytes):
                        if let l2cap {
                            do {
                                try await Self.send(bytes, on: l2cap, within: timeouts.drain)
                            } catch is L2CAPSendStalled {
                                result.timedOut = result.timedOut ?? .drain
                                linkDropped = true
                                if !l2capDone {
                                    l2capDone = true
                                    result.transportEnd = .disconnected
                                    holderOutputs += holder.transportClosed()
                                }
                            } catch {
                                if !l2capDone {
                                    l2capDone = true
                                    result.transportEnd = .disconnected
                                    holderOutputs += holder.transportClosed()
                                }
                            }
                        } else {
                            feed(.send(bytes))
                        }
                    case .consentNeeded(let request):
                        let prompt = consent
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
                        if endingSince == nil { endingSince = Date() }
                        // The reader ended (status 20): it will disconnect; otherwise the
                        // queued SessionData drains and State 0x02 follows.
                        if let l2cap {
                            // No State on L2CAP: the holder ends by closing the channel.
                            if !l2capDone {
                                l2capDone = true
                                result.transportEnd = reason == .readerEnded ? .peerEnded : .localEnded
                                await l2cap.close()
                            }
                        } else if reason != .readerEnded {
                            feed(.end)
                        }
                    }
                }
                if !bleOutputs.isEmpty {
                    switch bleOutputs.removeFirst() {
                    case .messageReceived(let message): holderOutputs += receive(message)
                    case .sendChunk(let chunk):
                        do {
                            try await link(mode)?.sendChunk(chunk)
                            outputStalledSince = Date()
                            feed(.chunkSent)
                        } catch {
                            feed(.disconnected)
                        }
                    case .sendState(let state):
                        try? await link(mode)?.sendState(state)
                    case .identVerified:
                        if centralL2CAP, let channel = try? await centralClient?.openL2CAP(psm: nil) {
                            // The reader's L2CAP channel instead of its GATT characteristics.
                            continuation.yield(.l2capConnected(channel))
                            break
                        }
                        do {
                            try await centralClient?.subscribe()
                            feed(.subscribed)
                        } catch {
                            feed(.disconnected)
                        }
                    case .progress(let p): progress(p)
                    case .sessionStarted: observer(.readerConnected)
                    case .sessionEnded(let reason, _):
                        result.transportEnd = reason
                        holderOutputs += holder.transportClosed()
                    }
                }
            }
            if ble?.hasPendingOutput == true, l2cap == nil {
                if outputStalledSince == nil { outputStalledSince = Date() }
            } else {
                outputStalledSince = nil
            }
            if linkDropped || l2capDone || (l2cap == nil && ble?.isEnded == true)
                || (holder.isEnded && (result.holderEnd == .readerEnded || ble == nil))
            {
                break loop
            }
        }
        result.responsesSent = holder.responsesSent
        await l2cap?.close()
        listener?.close()
        centralTask?.cancel()
        await server?.stop()
        await centralClient?.disconnect()
        continuation.finish()
        if let failure { throw failure }
        return result
    }

    /// Sends a message on the L2CAP channel; a reader that stops reading blocks the socket,
    /// so after `limit` the channel is closed (which ends the send) and this throws
    /// ``L2CAPSendStalled``.
    private static func send(_ message: [UInt8], on channel: L2CAPMessageChannel, within limit: Duration)
        async throws
    {
        let watchdog = Task {
            do {
                try await Task.sleep(for: limit)
            } catch {
                return false
            }
            await channel.close()
            return true
        }
        do {
            try await channel.send(message)
        } catch {
            watchdog.cancel()
            if await watchdog.value { throw L2CAPSendStalled() }
            throw error
        }
        watchdog.cancel()
        if await watchdog.value { throw L2CAPSendStalled() }
    }

    /// The GATT link of the mode in use.
    private func link(_ mode: ProximityMode?) -> GattLink? {
        switch mode {
        case .peripheralServer?: return server.map { .server($0) }
        case .centralClient?: return centralClient.map { .client($0) }
        case nil: return nil
        }
    }
}

extension ProximitySessionResult {
    /// How the session ended, in words, the telling cause first: a transport timeout, a BLE
    /// protocol error (bad chunk header, oversize message, data before start), the engine's
    /// reason, then the link's. A protocol error is never reported as the link closing.
    public var endDescription: String {
        if let timedOut { return timedOut.description }
        if let transportEnd, case .protocolError = transportEnd { return transportEnd.description }
        if let holderEnd, holderEnd != .transportClosed { return holderEnd.description }
        return transportEnd?.description ?? holderEnd?.description ?? "ended"
    }
}

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

/// The holder's proximity loop in mdoc peripheral-server mode: a fresh engagement, the GATT
/// service, the BLE framing, the holder engine and the consent prompt, until the session
/// ends. One instance serves one session at a time.
public struct ProximityHolder: Sendable {
    public let server: any MdocGattServer
    public let credentials: [PresentableCredential]
    public let configuration: HolderConfiguration
    public let consent: any ConsentPrompt
    /// How often timeouts are checked.
    public var tickInterval: Duration = .milliseconds(500)

    public init(
        server: any MdocGattServer, credentials: [PresentableCredential], configuration: HolderConfiguration,
        consent: any ConsentPrompt
    ) {
        self.server = server
        self.credentials = credentials
        self.configuration = configuration
        self.consent = consent
    }

    /// Inputs of the loop, from the GATT server, the consent prompt and the clock.
    private enum Input: Sendable {
        case gatt(MdocGattEvent)
        case decided(ConsentDecision)
        case tick
        case gattClosed
    }

    /// Runs one session. `showEngagement` gets the engagement (to print its QR code) before
    /// the service is registered; `progress` gets the outgoing transfer's progress;
    /// `observer` gets the session's milestones (``ProximitySessionEvent``) as they happen.
    public func runSession(
        showEngagement: @Sendable (DeviceEngagement) -> Void,
        progress: @escaping @Sendable (TransferProgress) -> Void = { _ in },
        observer: @escaping @Sendable (ProximitySessionEvent) -> Void = { _ in }
    ) async throws -> ProximitySessionResult {
        let eDeviceKey = try PrivateKey.generate(.p256)
        let serviceUUID = BLEUUID(bytes: SecureRandom.bytes(16))!
        let engagement = DeviceEngagement(
            eDeviceKey: eDeviceKey.publicKey,
            retrievalMethods: [
                .ble(
                    version: 1,
                    BleOptions(
                        peripheralServerMode: true, centralClientMode: false, peripheralServerUUID: serviceUUID.bytes))
            ])
        var holder = HolderSession(
            engagement: engagement, eDeviceKey: eDeviceKey, credentials: credentials, configuration: configuration)
        var ble = try BLESession(mode: .peripheralServer, maximumMessageSize: configuration.maxMessageSize)
        var result = ProximitySessionResult(engagement: engagement, responsesSent: 0, records: [])

        showEngagement(engagement)
        let events = try await server.start(serviceUUID: serviceUUID)
        observer(.advertising(engagement))
        let (inputs, continuation) = AsyncStream<Input>.makeStream()
        let forwarder = Task {
            for await event in events { continuation.yield(.gatt(event)) }
            continuation.yield(.gattClosed)
        }
        let ticker = Task { [tickInterval] in
            while !Task.isCancelled {
                try? await Task.sleep(for: tickInterval)
                continuation.yield(.tick)
            }
        }
        var consentTask: Task<Void, Never>?
        defer {
            forwarder.cancel()
            ticker.cancel()
            consentTask?.cancel()
        }

        // Work queues: BLE outputs to carry out, engine outputs to route.
        var bleOutputs: [BLESessionOutput] = []
        var holderOutputs: [HolderOutput] = []

        func feed(_ event: BLESessionEvent) { bleOutputs += ble.handle(event) }

        loop: for await input in inputs {
            switch input {
            case .gatt(let event):
                switch event {
                case .mtu(let mtu): feed(.mtuChanged(mtu))
                case .subscribed(.server2Client): feed(.subscribed)
                case .unsubscribed(.server2Client): feed(.unsubscribed)
                case .subscribed, .unsubscribed: break
                case .written(.state, let value): feed(.stateReceived(value))
                case .written(.client2Server, let chunk): feed(.chunkReceived(chunk))
                case .written(.server2Client, _): break
                case .disconnected: feed(.disconnected)
                }
            case .decided(let decision):
                holderOutputs += holder.consent(decision)
            case .tick:
                holderOutputs += holder.tick(at: Date())
            case .gattClosed:
                feed(.disconnected)
            }

            // Carry out everything the two state machines asked for, until both are quiet.
            while !bleOutputs.isEmpty || !holderOutputs.isEmpty {
                while !holderOutputs.isEmpty {
                    switch holderOutputs.removeFirst() {
                    case .send(let bytes): feed(.send(bytes))
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
                        // The reader ended (status 20): it will disconnect; otherwise the
                        // queued SessionData drains and State 0x02 follows.
                        if reason != .readerEnded { feed(.end) }
                    }
                }
                if !bleOutputs.isEmpty {
                    switch bleOutputs.removeFirst() {
                    case .messageReceived(let message): holderOutputs += holder.receive(message, at: Date())
                    case .sendChunk(let chunk):
                        do {
                            try await server.notify(.server2Client, chunk)
                            feed(.chunkSent)
                        } catch {
                            feed(.disconnected)
                        }
                    case .sendState(let state):
                        try? await server.notify(.state, state.value)
                    case .progress(let p): progress(p)
                    case .sessionStarted: observer(.readerConnected)
                    case .readerIdentVerified: break
                    case .sessionEnded(let reason, _):
                        result.transportEnd = reason
                        holderOutputs += holder.transportClosed()
                    }
                }
            }
            if ble.isEnded || (holder.isEnded && result.holderEnd == .readerEnded) { break loop }
        }
        result.responsesSent = holder.responsesSent
        await server.stop()
        continuation.finish()
        return result
    }
}

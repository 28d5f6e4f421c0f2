import BLETransport
import Foundation

/// What the GATT link of the reader reports, in either mode.
enum ReaderLinkEvent: Sendable, Equatable {
    /// A State value from the holder (peripheral-server mode: its notification; central-client
    /// mode: its write).
    case state([UInt8])
    /// One chunk of a holder message (peripheral-server mode: a Server2Client notification;
    /// central-client mode: a Client2Server write).
    case chunk([UInt8])
    /// A whole holder message (L2CAP: one frame); empty when the holder ends the session.
    case message([UInt8])
    /// The link is gone.
    case disconnected
}

/// The GATT operations the reader needs on one connection to a holder, in either mode.
/// ``BlueZReaderLink`` implements it as the GATT client (mdoc peripheral-server mode: the
/// holder serves), ``BlueZReaderService`` as the GATT server (mdoc central-client mode: we
/// serve, with our Ident); anything else (a test double) can stand in.
protocol ReaderGattLink: Sendable {
    /// The ATT MTU of the connection.
    var mtu: Int { get }
    /// The holder's State values and chunks, and the end of the link, in arrival order.
    var events: AsyncStream<ReaderLinkEvent> { get }
    /// Starts the session: as the GATT client, State 0x01 written without response; as the
    /// GATT server, nothing (the holder wrote State 0x01 before the link was handed out).
    func start() async throws
    /// One chunk of our message: a write without response to Client2Server (GATT client) or
    /// a Server2Client notification (GATT server); returns once it is out.
    func sendChunk(_ chunk: [UInt8]) async throws
    /// Unsubscribes and disconnects, or withdraws the service (best effort).
    func close() async
    /// True when ``sendChunk(_:)`` takes whole messages and events carry whole messages
    /// (an L2CAP channel frames them itself).
    var carriesMessages: Bool { get }
}

extension ReaderGattLink {
    var carriesMessages: Bool { false }
}

/// Why the reader's BLE transport failed; each case names the step.
enum BLEReaderError: Error, Sendable, CustomStringConvertible {
    case busUnavailable(String)
    case bluetoothUnavailable
    case adapterNotFound(String)
    case adapterLookupFailed(String, String)
    case adapterNotPowered(String, String)
    case discoveryFailed(String)
    case deviceNotFound(service: String, seconds: Double)
    case connectFailed(device: String, String)
    case serviceMissing(String)
    case characteristicMissing(name: String, uuid: String)
    case subscribeFailed(name: String, String)
    /// Central-client mode: our mdoc service could not be registered or advertised.
    case serveFailed(String)
    /// Central-client mode: no holder subscribed and wrote State 0x01 in time.
    case holderDidNotStart(seconds: Double)
    case writeFailed(what: String, String)
    case noResponse(seconds: Double)
    case chunkError(BLETransportError)
    case disconnected

    var description: String {
        switch self {
        case .busUnavailable(let e): return "cannot connect to the system D-Bus: \(e)"
        case .bluetoothUnavailable: return "BlueZ (org.bluez) is not on the system bus: is bluetoothd running?"
        case .adapterNotFound(let name): return "Bluetooth adapter \(name) not found"
        case .adapterLookupFailed(let name, let e): return "looking up Bluetooth adapter \(name) failed: \(e)"
        case .adapterNotPowered(let name, let e): return "Bluetooth adapter \(name) could not be powered on: \(e)"
        case .discoveryFailed(let e): return "LE scan failed: \(e)"
        case .deviceNotFound(let service, let seconds):
            return "no device advertising the mdoc service \(service) found within \(Self.format(seconds)) s"
        case .connectFailed(let device, let e): return "connecting to \(device) failed: \(e)"
        case .serviceMissing(let service): return "the device does not offer the mdoc service \(service)"
        case .characteristicMissing(let name, let uuid):
            return "the mdoc service has no \(name) characteristic (\(uuid))"
        case .subscribeFailed(let name, let e): return "subscribing to \(name) failed: \(e)"
        case .serveFailed(let e): return "serving the mdoc service failed: \(e)"
        case .holderDidNotStart(let seconds):
            return "no holder connected to our mdoc service and started the session within \(Self.format(seconds)) s "
                + "(is the holder scanning in central-client mode, on an adapter in range?)"
        case .writeFailed(let what, let e): return "writing \(what) failed: \(e)"
        case .noResponse(let seconds): return "no response from the holder within \(Self.format(seconds)) s"
        case .chunkError(let e): return "the holder sent a malformed message: \(e)"
        case .disconnected: return "the holder disconnected before responding"
        }
    }

    static func format(_ seconds: Double) -> String {
        seconds == seconds.rounded() ? String(Int(seconds)) : String(seconds)
    }
}

/// The reader's half of the ISO 18013-5 BLE transport (8.3.3.1.1) over a connected GATT
/// link: State 0x01 to start, messages out as Client2Server chunks (write without response,
/// in order), messages in reassembled from Server2Client notifications, and the holder's
/// end of the session (State 0x02 or a disconnect).
actor BLEReaderTransport {
    /// What ``receive(timeout:)`` returns.
    enum Received: Sendable, Equatable {
        /// A complete message from the holder.
        case message([UInt8])
        /// The holder ended the session (State 0x02, or the link dropped) without sending a
        /// (further) message.
        case holderEnded(byState: Bool)
    }

    private enum Inbound: Sendable {
        case message([UInt8])
        case holderEnded(byState: Bool)
        case failure(BLEReaderError)
    }

    /// How long to keep listening for Server2Client after State 0x02 or a disconnect: the
    /// two characteristics are separate subscriptions, so the last chunk of a response may
    /// be delivered to us just after the State that follows it.
    static let endGrace: Duration = .milliseconds(750)

    let link: any ReaderGattLink
    let fragmenter: MessageFragmenter
    private var assembler: MessageAssembler
    private var inbox: [Inbound] = []
    private var waiter: (id: Int, continuation: CheckedContinuation<Inbound?, Never>, timer: Task<Void, Never>)?
    private var nextWaiterID = 0
    private var pump: Task<Void, Never>?
    /// True once the holder sent State 0x02 or the link dropped.
    private(set) var holderHasEnded = false

    /// - Throws: ``BLEReaderError/chunkError(_:)`` when the link's MTU is below 23.
    init(link: any ReaderGattLink, maximumMessageSize: Int = 4 * 1024 * 1024) throws(BLEReaderError) {
        self.link = link
        do {
            fragmenter = try MessageFragmenter(mtu: link.mtu)
        } catch {
            throw .chunkError(error)
        }
        assembler = MessageAssembler(maximumMessageSize: maximumMessageSize)
    }

    /// Starts listening and writes State 0x01 (the reader starts the session).
    func start() async throws(BLEReaderError) {
        if pump == nil {
            let events = link.events
            pump = Task { [weak self] in
                for await event in events {
                    guard let self else { return }
                    await self.ingest(event)
                }
                await self?.ingest(.disconnected)
            }
        }
        do {
            try await link.start()
        } catch {
            throw .writeFailed(what: "State 0x01 (session start)", "\(error)")
        }
    }

    /// Sends one message as Client2Server chunks, in order, each awaited.
    func send(_ message: [UInt8]) async throws(BLEReaderError) {
        if link.carriesMessages {
            do {
                try await link.sendChunk(message)
            } catch {
                throw .writeFailed(what: "a message on the L2CAP channel", "\(error)")
            }
            return
        }
        var offset = 0
        var index = 0
        let count = fragmenter.chunkCount(forMessageSize: message.count)
        repeat {
            let (chunk, next) = fragmenter.chunk(of: message, from: offset)
            do {
                try await link.sendChunk(chunk)
            } catch {
                throw .writeFailed(what: "chunk \(index + 1) of \(count)", "\(error)")
            }
            offset = next
            index += 1
        } while offset < message.count
    }

    /// The next message from the holder, or the holder's end of the session.
    ///
    /// - Throws: ``BLEReaderError/noResponse(seconds:)`` after `timeout`,
    ///   ``BLEReaderError/chunkError(_:)`` on a malformed chunk.
    func receive(timeout: Duration) async throws(BLEReaderError) -> Received {
        let clock = ContinuousClock()
        var deadline = clock.now.advanced(by: timeout)
        var ended: Bool?
        while true {
            guard let inbound = await next(until: deadline) else {
                if let ended { return .holderEnded(byState: ended) }
                throw .noResponse(seconds: timeout.seconds)
            }
            switch inbound {
            case .message(let message):
                return .message(message)
            case .holderEnded(let byState):
                if ended == nil {
                    ended = byState
                    deadline = min(deadline, clock.now.advanced(by: Self.endGrace))
                }
            case .failure(let error):
                throw error
            }
        }
    }

    /// Ends the session: sends `termination` (SessionData status 20) unless the holder has
    /// already ended it, then closes the link. Failures here are ignored: the session is
    /// over either way.
    /// - Returns: whether `termination` went out.
    @discardableResult
    func close(sending termination: [UInt8]?) async -> Bool {
        var sent = false
        if let termination, !holderHasEnded {
            sent = (try? await send(termination)) != nil
        }
        pump?.cancel()
        pump = nil
        await link.close()
        if let waiter {
            self.waiter = nil
            waiter.timer.cancel()
            waiter.continuation.resume(returning: nil)
        }
        return sent
    }

    // MARK: - Inbox

    private func ingest(_ event: ReaderLinkEvent) {
        switch event {
        case .chunk(let chunk):
            do {
                if let message = try assembler.append(chunk) { deliver(.message(message)) }
            } catch {
                deliver(.failure(.chunkError(error)))
            }
        case .message(let message):
            if !message.isEmpty {
                deliver(.message(message))
            } else if !holderHasEnded {
                holderHasEnded = true
                deliver(.holderEnded(byState: false))
            }
        case .state(let value):
            // Only 0x02 means anything to the reader; other values are ignored.
            if BLEStateValue(value: value) == .end, !holderHasEnded {
                holderHasEnded = true
                deliver(.holderEnded(byState: true))
            }
        case .disconnected:
            if !holderHasEnded {
                holderHasEnded = true
                deliver(.holderEnded(byState: false))
            }
        }
    }

    private func deliver(_ inbound: Inbound) {
        if let waiter {
            self.waiter = nil
            waiter.timer.cancel()
            waiter.continuation.resume(returning: inbound)
        } else {
            inbox.append(inbound)
        }
    }

    /// The next inbound item, or nil at `deadline`.
    private func next(until deadline: ContinuousClock.Instant) async -> Inbound? {
        if !inbox.isEmpty { return inbox.removeFirst() }
        guard deadline > ContinuousClock.now else { return nil }
        nextWaiterID += 1
        let id = nextWaiterID
        return await withCheckedContinuation { continuation in
            let timer = Task { [weak self] in
                try? await Task.sleep(until: deadline, clock: .continuous)
                await self?.expire(id)
            }
            waiter = (id, continuation, timer)
        }
    }

    private func expire(_ id: Int) {
        guard let waiter, waiter.id == id else { return }
        self.waiter = nil
        waiter.continuation.resume(returning: nil)
    }
}

extension Duration {
    /// The duration in seconds.
    var seconds: Double { Double(components.seconds) + Double(components.attoseconds) / 1e18 }
}

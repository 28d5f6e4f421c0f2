import BLEBlueZ
import BLETransport
import BlueZ
import DBus
import Foundation
import OnlineTransport
import OpenID4VP
import Presentation
import Proximity
import Wallet

/// The service's sessions: proximity sessions (one per adapter at a time) and online
/// presentations, their ids, cancellation and end. Follows `org.bluez` on the bus: when
/// bluetoothd leaves, the proximity sessions end (their registrations went with it).
actor SessionManager {
    let environment: ServiceEnvironment
    private var nextID: UInt64 = 1
    private var proximity: [UInt64: Task<Void, Never>] = [:]
    private var adapterSessions: [String: UInt64] = [:]
    /// Online sessions: presentations and issuances (SessionManager+Receive.swift).
    var online: [UInt64: Task<Void, Never>] = [:]
    /// Sessions ended from outside (Cancel, bluetoothd gone): the reason their Ended carries.
    private var endReasons: [UInt64: String] = [:]
    private var endWaiters: [UInt64: [CheckedContinuation<Void, Never>]] = [:]
    /// One GATT server and one GATT client, on a BlueZ connection of their own, per adapter used.
    private var links: [String: BlueZRoles] = [:]
    /// A BlueZ connection to check adapter names on.
    private var probe: BlueZClient?
    private var bluetoothWaiters: [UInt64: CheckedContinuation<Void, Never>] = [:]
    private var nextWaiter: UInt64 = 0
    /// Set when the service stops: no new session starts.
    private(set) var stopping = false
    /// Damaged credential rows already logged (each is logged once, not once per session).
    private var reportedUnreadable: Set<UnreadableRow> = []

    init(environment: ServiceEnvironment) {
        self.environment = environment
    }

    var log: ServiceLog { environment.log }

    func allocateID() -> UInt64 {
        defer { nextID += 1 }
        return nextID
    }

    // MARK: Proximity

    /// Starts a proximity session on `adapter`; returns once the reader can connect, with the
    /// session id and the engagement URI.
    func startProximity(adapter: String, mode: ProximityModeOption) async throws(HolderServiceError) -> (
        UInt64, String
    ) {
        if stopping { throw .failed("the service is stopping") }
        if let running = adapterSessions[adapter] { throw .busy(adapter: adapter, session: running) }
        let id = allocateID()
        adapterSessions[adapter] = id
        let credentials: [PresentableCredential]
        let links: BlueZRoles
        do {
            var unreadable: [UnreadableRow] = []
            credentials = try environment.store.presentableCredentials { unreadable.append($0) }
            for row in unreadable where reportedUnreadable.insert(row).inserted {
                log.warning("not presented: \(row)")
            }
            guard !credentials.isEmpty else { throw HolderServiceError.noCredential }
            links = try await adapterLinks(for: adapter)
        } catch {
            adapterSessions[adapter] = nil
            if let error = error as? HolderServiceError { throw error }
            throw .store("the credential store \(environment.store.path) could not be read: \(error)")
        }
        var configuration = environment.configuration.holder
        if case .agent(let timeout) = environment.configuration.consent {
            // The agent's own timeout answers first (a decline and Cancel to the agent).
            configuration.consentTimeout = timeout + .seconds(5)
        }
        let holder = environment.configuration.proximity.with(modes: mode).holder(
            server: UncancelledStopServer(inner: links.server),
            client: UncancelledDisconnectClient(inner: links.client),
            l2capListener: links.l2capListener, credentials: credentials, configuration: configuration,
            consent: environment.consentPrompt(session: id))
        let (ready, readyContinuation) = AsyncStream<Result<String, HolderServiceError>>.makeStream()
        let environment = environment
        proximity[id] = Task {
            let reason = await Self.runProximity(
                id, adapter: adapter, holder: holder, environment: environment, ready: readyContinuation)
            self.ended(id, adapter: adapter, reason: reason)
        }
        log.info("session \(id): starting on \(adapter) (\(mode.rawValue))")
        for await outcome in ready { return (id, try outcome.get()) }
        throw .failed("session \(id) ended before its engagement was ready")
    }

    private static func runProximity(
        _ id: UInt64, adapter: String, holder: ProximityHolder, environment: ServiceEnvironment,
        ready: AsyncStream<Result<String, HolderServiceError>>.Continuation
    ) async -> String {
        let (signals, log) = (environment.signals, environment.log)
        defer { ready.finish() }
        do {
            let result = try await holder.runSession(
                showEngagement: { _ in },
                observer: { event in
                    switch event {
                    case .advertising(let engagement):
                        log.info("session \(id): engagement ready on \(adapter)")
                        signals.engagementReady(id, uri: engagement.uri)
                        ready.yield(.success(engagement.uri))
                        ready.finish()
                    case .readerConnected:
                        log.info("session \(id): reader connected")
                        signals.readerConnected(id)
                    case .requestReceived(let docTypes, let requester):
                        log.info(
                            "session \(id): request from \(requester.displayName) (\(requester.authentication.summary)) for \(docTypes.joined(separator: ", "))"
                        )
                        signals.requestReceived(id, requester: requester.displayName, docTypes: docTypes)
                    case .responded(let records):
                        let sent = records.filter { $0.outcome == .sent }
                        for record in records { log.info("session \(id): \(Self.describe(record))") }
                        signals.responseSent(
                            id, docTypes: sent.map(\.docType), elements: sent.reduce(0) { $0 + $1.elementsSent.count })
                    }
                })
            do {
                try environment.store.record(result.records, channel: .ble)
            } catch {
                log.error("session \(id): the history could not be written: \(error)")
            }
            return SessionEndReason.proximity(result)
        } catch {
            let problem: HolderServiceError =
                error is CancellationError
                ? .failed("session \(id) was cancelled before its engagement was ready")
                : .bluetooth("the mdoc service could not be started on \(adapter): \(error)")
            ready.yield(.failure(problem))
            return error is CancellationError ? SessionEndReason.cancelled : SessionEndReason.error("\(error)")
        }
    }

    /// One line for the log: doc type, element identifiers and who, never values.
    static func describe(_ record: PresentationRecord) -> String {
        switch record.outcome {
        case .sent:
            "sent \(record.docType) [\(record.elementsSent.map(\.description).joined(separator: ", "))] to \(record.requester.displayName)"
        case .declined: "declined \(record.docType) for \(record.requester.displayName)"
        case .notReturned(let reason): "did not return \(record.docType): \(reason)"
        }
    }

    /// The GATT server (peripheral-server mode) and client (central-client mode) of
    /// `adapter`, made the first time the adapter is used. Only adapters BlueZ knows get them
    /// (names come from callers), so their number stays that of the adapters present.
    private func adapterLinks(for adapter: String) async throws(HolderServiceError) -> BlueZRoles {
        if let existing = links[adapter] { return existing }
        do {
            let probe: BlueZClient
            if let existing = self.probe {
                probe = existing
            } else {
                probe = try await BlueZClient.connect(busAddress: environment.configuration.busAddress)
                self.probe = probe
            }
            _ = try await probe.adapter(named: adapter)
            if let existing = links[adapter] { return existing }
            let client = try await BlueZClient.connect(busAddress: environment.configuration.busAddress)
            let log = log
            let made = BlueZRoles.holder(
                client: client, adapter: adapter, l2cap: environment.configuration.proximity.l2cap,
                warn: { log.warning("\(adapter): \($0)") }, log: { log.info("\(adapter): \($0)") })
            links[adapter] = made
            return made
        } catch {
            throw .bluetooth("cannot use \(adapter): \(error)")
        }
    }

    // MARK: Online

    /// The consent front-end of online session `id` (presentation or issuance): the
    /// configured one, with RequestReceived signalled when it is asked.
    static func onlinePrompt(_ id: UInt64, _ environment: ServiceEnvironment) -> SignalingConsentPrompt {
        SignalingConsentPrompt(
            session: id, inner: environment.consentPrompt(session: id), signals: environment.signals,
            log: environment.log)
    }

    /// Starts an OpenID4VP presentation in the background; returns its session id.
    func startOnline(url: String) throws(HolderServiceError) -> UInt64 {
        guard environment.configuration.online else {
            throw .notSupported(
                "online presentation is off: run serve with --online (systemd: link the online.conf drop-in)")
        }
        guard let colon = url.firstIndex(of: ":"),
            AuthorizationRequestURL.schemes.contains(url[..<colon].lowercased()), url.contains("?")
        else {
            throw .invalidArguments(
                "the URL is not an OpenID4VP request: give the openid4vp://, haip-vp://, mdoc-openid4vp:// or https://...? URL of the verifier's QR code or link"
            )
        }
        if stopping { throw .failed("the service is stopping") }
        let id = allocateID()
        let environment = environment
        let prompt = Self.onlinePrompt(id, environment)
        online[id] = Task {
            let reason = await Self.runOnline(id, url: url, prompt: prompt, environment: environment)
            self.ended(id, adapter: nil, reason: reason)
        }
        log.info("session \(id): online presentation started")
        return id
    }

    /// One online presentation, off the actor (`@concurrent`): reading the request and
    /// matching its query never hold up other calls.
    @concurrent private static func runOnline(
        _ id: UInt64, url: String, prompt: SignalingConsentPrompt, environment: ServiceEnvironment
    ) async -> String {
        let configuration = environment.configuration
        do {
            let outcome = try await OnlinePresentation.run(
                url: url, store: environment.store, consent: prompt, verifierTrust: configuration.verifierTrust,
                tlsCAs: configuration.tlsCAs, limits: configuration.httpLimits)
            let sent = outcome.records.filter { $0.outcome == .sent }
            if outcome.isSent {
                environment.signals.responseSent(
                    id, docTypes: sent.map(\.docType), elements: sent.reduce(0) { $0 + $1.elementsSent.count })
            }
            for record in outcome.records { environment.log.info("session \(id): \(describe(record))") }
            for warning in outcome.warnings { environment.log.warning("session \(id): \(warning)") }
            return SessionEndReason.online(outcome)
        } catch {
            return SessionEndReason.error("\(error)")
        }
    }

    // MARK: Ending

    /// Ends a session and returns once it is gone (its adapter free for the next
    /// StartProximity, its registrations removed from BlueZ); its Ended says "cancelled".
    func cancel(_ id: UInt64) async throws(HolderServiceError) {
        try requestCancel(id)
        await waitUntilEnded(id)
    }

    /// Asks a session to end, without waiting.
    private func requestCancel(_ id: UInt64) throws(HolderServiceError) {
        guard let task = proximity[id] ?? online[id] else {
            throw .notFound("no running session \(id): it has ended or never existed")
        }
        if endReasons[id] == nil { endReasons[id] = SessionEndReason.cancelled }
        task.cancel()
    }

    /// Ends every session (the service stops) and waits for them.
    func cancelAll() async {
        stopping = true
        for waiter in bluetoothWaiters.values { waiter.resume() }
        bluetoothWaiters = [:]
        let ids = Array(proximity.keys) + Array(online.keys)
        for id in ids { try? requestCancel(id) }
        for id in ids { await waitUntilEnded(id) }
    }

    func ended(_ id: UInt64, adapter: String?, reason: String) {
        let reason = endReasons.removeValue(forKey: id) ?? reason
        proximity[id] = nil
        online[id] = nil
        if let adapter, adapterSessions[adapter] == id { adapterSessions[adapter] = nil }
        log.info("session \(id): ended (\(reason))")
        environment.signals.ended(id, reason: reason)
        for waiter in endWaiters.removeValue(forKey: id) ?? [] { waiter.resume() }
    }

    /// Returns once session `id` has ended (at once when it is not running).
    func waitUntilEnded(_ id: UInt64) async {
        guard proximity[id] != nil || online[id] != nil else { return }
        await withCheckedContinuation { endWaiters[id, default: []].append($0) }
    }

    // MARK: bluetoothd

    /// Follows `org.bluez` until the bus connection closes; returns then.
    func followBluetooth(_ changes: AsyncStream<DBusMessage>) async {
        for await change in changes {
            guard change.body.count == 3, let owner = change.body[2].stringValue else { continue }
            if owner.isEmpty {
                log.warning("bluetoothd left the bus: proximity sessions end")
                for id in proximity.keys where endReasons[id] == nil {
                    endReasons[id] = SessionEndReason.error("bluetoothd left the bus")
                    proximity[id]?.cancel()
                }
            } else {
                log.notice("bluetoothd is on the bus")
            }
            for waiter in bluetoothWaiters.values { waiter.resume() }
            bluetoothWaiters = [:]
        }
    }

    /// Returns when `org.bluez` changes owner, or after `timeout`.
    func waitForBluetoothChange(timeout: Duration) async {
        if stopping { return }
        nextWaiter += 1
        let token = nextWaiter
        let timer = Task {
            try? await Task.sleep(for: timeout)
            self.wake(token)
        }
        await withCheckedContinuation { bluetoothWaiters[token] = $0 }
        timer.cancel()
    }

    private func wake(_ token: UInt64) {
        bluetoothWaiters.removeValue(forKey: token)?.resume()
    }
}

/// Disconnects the GATT client from a task of its own, for the same reason as
/// ``UncancelledStopServer``: a cancelled session still lets the reader go.
struct UncancelledDisconnectClient: MdocGattClient {
    let inner: BlueZMdocGattClient

    func connect(serviceUUID: BluetoothUUID, characteristics: MdocBluetoothUUIDs.Characteristics) async throws
        -> MdocGattConnection
    {
        try await inner.connect(serviceUUID: serviceUUID, characteristics: characteristics)
    }

    func readIdent() async throws -> [UInt8]? { try await inner.readIdent() }

    func subscribe() async throws { try await inner.subscribe() }

    func write(_ characteristic: MdocCharacteristic, _ value: [UInt8]) async throws {
        try await inner.write(characteristic, value)
    }

    func openL2CAP(psm: UInt16?) async throws -> (any MdocL2CAPChannel)? {
        try await inner.openL2CAP(psm: psm)
    }

    func disconnect() async {
        let inner = inner
        await Task { await inner.disconnect() }.value
    }
}

/// Stops the GATT server from a task of its own: a cancelled session still unregisters its
/// service and advertisement from BlueZ (calls from a cancelled task are abandoned).
struct UncancelledStopServer: MdocGattServer {
    let inner: BlueZMdocGattServer

    func start(_ service: MdocGattService) async throws -> AsyncStream<MdocGattEvent> {
        try await inner.start(service)
    }

    func notify(_ characteristic: MdocCharacteristic, _ value: [UInt8]) async throws {
        try await inner.notify(characteristic, value)
    }

    func stop() async {
        let inner = inner
        await Task { await inner.stop() }.value
    }
}

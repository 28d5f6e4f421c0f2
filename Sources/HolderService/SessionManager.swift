import BLEBlueZ
import BLETransport
import BlueZ
import DBus
import FoundationEssentials
import HolderRuntime
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
    /// Issuances whose authorization URL the agent did not open: why (SessionManager+Receive.swift).
    var authorizationRefusals: [UInt64: String] = [:]
    /// Sessions ended from outside (Cancel, bluetoothd gone): the reason their Ended carries.
    private var endReasons: [UInt64: String] = [:]
    private var endWaiters: [UInt64: [CheckedContinuation<Void, Never>]] = [:]
    /// One GATT server and one GATT client, on a BlueZ connection of their own, per adapter used.
    private var links: [String: BlueZRoles] = [:]
    private var bluetoothWaiters: [UInt64: CheckedContinuation<Void, Never>] = [:]
    private var nextWaiter: UInt64 = 0
    /// Set when the service stops: no new session starts.
    private(set) var stopping = false

    init(environment: ServiceEnvironment) {
        self.environment = environment
    }

    var log: ServiceLog { environment.log }

    func allocateID() -> UInt64 {
        defer { nextID += 1 }
        return nextID
    }

    // MARK: Proximity

    /// Starts a proximity session on `adapter` (over `given` links, the adapter's BlueZ roles
    /// when nil); returns once the reader can connect, with the session id and the engagement URI.
    func startProximity(
        adapter: String, mode: ProximityModeOption, over given: ProximityLinks? = nil
    ) async throws(HolderServiceError) -> (UInt64, String) {
        if stopping { throw .failed("the service is stopping") }
        if let running = adapterSessions[adapter] { throw .busy(adapter: adapter, session: running) }
        let id = allocateID()
        adapterSessions[adapter] = id
        let presentation: ProximityPresentation
        let links: ProximityLinks
        do throws(HolderRuntimeError) {
            presentation = try environment.holder.prepareProximity(log: environment.sessionLog(id))
        } catch {
            adapterSessions[adapter] = nil
            throw HolderServiceError(error)
        }
        if let given {
            links = given
        } else {
            do {
                let roles = try await adapterLinks(for: adapter)
                // BlueZ's server stop and client disconnect finish even from a cancelled session.
                links = ProximityLinks(
                    server: roles.server, client: roles.client, l2capListener: roles.l2capListener)
            } catch {
                adapterSessions[adapter] = nil
                throw error
            }
        }
        return try await startProximity(id, adapter: adapter, mode: mode, presentation: presentation, links: links)
    }

    /// Runs proximity session `id` of `presentation` over `links` in the background; returns
    /// once the reader can connect, with the engagement URI.
    private func startProximity(
        _ id: UInt64, adapter: String, mode: ProximityModeOption, presentation: ProximityPresentation,
        links: ProximityLinks
    ) async throws(HolderServiceError) -> (UInt64, String) {
        let (ready, readyContinuation) = AsyncStream<Result<String, HolderServiceError>>.makeStream()
        let environment = environment
        proximity[id] = Task {
            let reason = await Self.runProximity(
                id, adapter: adapter, mode: mode, presentation: presentation, links: links,
                environment: environment, ready: readyContinuation)
            self.ended(id, adapter: adapter, reason: reason)
        }
        log.info("session \(id): starting on \(adapter) (\(mode.rawValue))")
        for await outcome in ready { return (id, try outcome.get()) }
        throw .failed("session \(id) ended before its engagement was ready")
    }

    private static func runProximity(
        _ id: UInt64, adapter: String, mode: ProximityModeOption, presentation: ProximityPresentation,
        links: ProximityLinks, environment: ServiceEnvironment,
        ready: AsyncStream<Result<String, HolderServiceError>>.Continuation
    ) async -> String {
        defer { ready.finish() }
        do {
            let outcome = try await presentation.run(
                over: links, modes: mode, consent: environment.consentPrompt(session: id),
                observer: { event in signal(event, session: id, adapter: adapter, environment, ready: ready) })
            return outcome.classification.reason
        } catch {
            ready.yield(
                .failure(
                    error == .cancelled
                        ? .failed("session \(id) was cancelled before its engagement was ready")
                        : .bluetooth("the mdoc service could not be started on \(adapter): \(error)")))
            return error == .cancelled ? SessionEndReason.cancelled : SessionClassification.error(error.description)
        }
    }

    /// A milestone of proximity session `id`: its signal and log line.
    private static func signal(
        _ event: ProximitySessionEvent, session id: UInt64, adapter: String, _ environment: ServiceEnvironment,
        ready: AsyncStream<Result<String, HolderServiceError>>.Continuation
    ) {
        let (signals, log) = (environment.signals, environment.log)
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
            signals.responseSent(id, records)
        }
    }

    /// The GATT server (peripheral-server mode) and client (central-client mode) of
    /// `adapter`, made the first time the adapter is used. Only adapters BlueZ knows get them
    /// (names come from callers), so their number stays that of the adapters present.
    private func adapterLinks(for adapter: String) async throws(HolderServiceError) -> BlueZRoles {
        if let existing = links[adapter] { return existing }
        do {
            // Adapter names are checked on the service's own bus connection: a connection
            // (and its thread) of their own would only sit idle after this one call.
            _ = try await BlueZClient(connection: environment.connection).adapter(named: adapter)
            if let existing = links[adapter] { return existing }
            let client = try await BlueZClient.connect(busAddress: environment.configuration.busAddress)
            let log = log
            let made = BlueZRoles.holder(
                client: client, adapter: adapter, l2cap: environment.configuration.settings.proximity.l2cap,
                warn: { log.warning("\(adapter): \($0)") }, log: { log.info("\(adapter): \($0)") })
            links[adapter] = made
            return made
        } catch {
            throw .bluetooth("cannot use \(adapter): \(error)")
        }
    }

    // MARK: Online

    /// A new online session (presentation or issuance), refused while the service stops: its
    /// id and its consent front-end, the configured one with RequestReceived signalled when it
    /// is asked.
    func newOnlineSession() throws(HolderServiceError) -> (id: UInt64, prompt: SignalingConsentPrompt) {
        if stopping { throw .failed("the service is stopping") }
        let id = allocateID()
        let prompt = SignalingConsentPrompt(
            session: id, inner: environment.consentPrompt(session: id), signals: environment.signals,
            log: environment.log)
        return (id, prompt)
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
        let (id, prompt) = try newOnlineSession()
        let environment = environment
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
        do {
            let outcome = try await environment.holder.presentOnline(
                url: url, consent: prompt, log: environment.sessionLog(id))
            if outcome.classification == .completed { environment.signals.responseSent(id, outcome.outcome.records) }
            return outcome.classification.reason
        } catch {
            return SessionClassification.error("\(error)")
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

import BLETransport
import Consent
import FoundationEssentials
import ISO18013
import Presentation

/// One session of ``ProximityHolder`` without I/O: events of the link, the consent prompt and
/// the clock in, what to do out. It keeps the holder engine (``HolderSession``), the
/// transport bounds (``ProximityTimeouts``) and the session's result; ``HolderLoopDriver``
/// runs it against the real channels. Whatever carries the messages (GATT chunks or L2CAP
/// frames), the channel keeps ``MessageChannel``'s contract (its drain bound, its
/// ``MessageChannel/outputWaitingSince``, ``MessageChannel/close()`` saying how it ended), so
/// nothing here depends on the transport.
struct HolderLoop: Sendable {
    /// Where the session is.
    enum Phase: Sendable, Equatable {
        /// The engagement is shown; no reader yet.
        case awaitingReader
        /// Messages move over the channel in use.
        case connected
        /// The holder began to end the session at this instant (its engine ended, or a bound
        /// passed); the link has the drain bound to close.
        case ending(since: ContinuousClock.Instant)
        /// The channel closed or was dropped, or the reader ended the session: nothing more.
        case finished
    }

    /// When an input happens: the monotonic clock of the transport bounds and the wall
    /// clock of the engine's timeouts.
    struct Moment: Sendable {
        var instant: ContinuousClock.Instant
        var date: Date

        static var now: Moment { Moment(instant: .now, date: Date()) }
    }

    /// What happened.
    enum Input: Sendable {
        /// The engagement is live (service registered, scan started).
        case advertising
        /// A reader showed up in this mode.
        case readerArrived(ProximityMode)
        /// A channel is in use from now on (an L2CAP one is started as it opens).
        case channelOpened(overL2CAP: Bool)
        /// The channel of `generation` started its session (GATT State 0x01).
        case started(generation: Int)
        /// An event of the channel of `generation`.
        case channel(MessageChannelEvent, generation: Int)
        /// A reader opened our L2CAP channel; whether our GATT session had started.
        case l2capOffered(gattStarted: Bool)
        /// The user's answer to ``Action/askConsent(_:)``.
        case decided(ConsentDecision)
        /// The clock; `outputWaitingSince` is the channel's.
        case tick(outputWaitingSince: ContinuousClock.Instant?)
        /// A ``Action/send(_:)`` failed: the channel is gone.
        case sendFailed
        /// A ``Action/close`` began at `began` returned how the session ended.
        case closeFinished(BLESessionEndReason, began: ContinuousClock.Instant)
    }

    /// What to do, in order.
    enum Action: Sendable {
        /// Sends a message on the channel in use (feed ``Input/sendFailed`` when it fails).
        case send([UInt8])
        /// Ends the session on the channel (``MessageChannel/close()``); feed
        /// ``Input/closeFinished(_:began:)``.
        case close
        /// Lets go of the channel at once (``MessageChannel/drop()``).
        case drop
        /// Takes the L2CAP channel offered: it replaces the one in use (feed
        /// ``Input/channelOpened(overL2CAP:)``).
        case acceptL2CAP
        /// Closes the L2CAP channel offered.
        case refuseL2CAP
        /// Asks the consent prompt; feed its answer as ``Input/decided(_:)``.
        case askConsent(ConsentRequest)
        /// Tells the observer.
        case report(ProximitySessionEvent)
    }

    let engagement: DeviceEngagement
    let timeouts: ProximityTimeouts
    private(set) var phase = Phase.awaitingReader
    /// The channel in use, counted: events of a replaced channel are not taken.
    private(set) var generation = 0
    private var holder: HolderSession
    private var outcome: ProximitySessionResult
    /// Whether the observer heard that the reader connected (told once, before its request).
    private var connectedTold = false
    /// A ``Action/close`` is under way.
    private var closing = false
    /// When a reader showed up, and whether it sent a message.
    private var readerArrivedAt: ContinuousClock.Instant?
    private var messageReceived = false

    /// - Parameter modes: the modes offered: with one only, it is the result's mode even when
    ///   no reader comes.
    init(holder: HolderSession, timeouts: ProximityTimeouts, modes: Set<ProximityMode>) {
        self.holder = holder
        self.timeouts = timeouts
        engagement = holder.engagement
        outcome = ProximitySessionResult(engagement: holder.engagement, responsesSent: 0, records: [])
        if modes.count == 1 { outcome.mode = modes.first }
    }

    /// How the session went so far.
    var result: ProximitySessionResult {
        var result = outcome
        result.responsesSent = holder.responsesSent
        return result
    }

    /// Why L2CAP was not offered although asked for.
    mutating func setL2CAPUnavailable(_ why: String?) { outcome.l2capUnavailable = why }

    /// Whether the session is over: the link closed (or was dropped), or the reader ended it
    /// (status 20: it disconnects, nothing more is said).
    var isFinished: Bool { phase == .finished }

    private var channelOpen: Bool {
        switch phase {
        case .connected, .ending: return true
        case .awaitingReader, .finished: return false
        }
    }

    /// Takes one input; returns what to do, in order.
    mutating func handle(_ input: Input, at now: Moment) -> [Action] {
        var actions: [Action] = []
        var outputs: [HolderOutput] = []
        switch input {
        case .advertising:
            actions.append(.report(.advertising(engagement)))
        case .readerArrived(let mode):
            outcome.mode = mode
            if readerArrivedAt == nil { readerArrivedAt = now.instant }
        case .channelOpened(let overL2CAP):
            actions += channelOpened(overL2CAP: overL2CAP, at: now)
        case .started(let generation):
            if generation == self.generation, channelOpen { actions += tellConnected() }
        case .channel(let event, let generation):
            guard generation == self.generation, channelOpen else { break }
            (actions, outputs) = channelEvent(event, at: now)
        case .l2capOffered(let gattStarted):
            let taken = !outcome.overL2CAP && !gattStarted && phase != .finished
            actions.append(taken ? .acceptL2CAP : .refuseL2CAP)
        case .decided(let decision):
            outputs = holder.consent(decision, at: now.date)
        case .tick(let waiting):
            (actions, outputs) = tick(outputWaitingSince: waiting, at: now)
        case .sendFailed:
            outputs = closed(.disconnected)
        case .closeFinished(let reason, let began):
            closing = false
            if !reason.isOrderly, now.instant - began >= timeouts.drain {
                outcome.timedOut = outcome.timedOut ?? .drain
            }
            outputs = closed(reason)
        }
        return actions + route(outputs, at: now)
    }

    // MARK: - The channel

    private mutating func channelOpened(overL2CAP: Bool, at now: Moment) -> [Action] {
        generation += 1
        if readerArrivedAt == nil { readerArrivedAt = now.instant }
        if case .ending = phase {} else { phase = .connected }
        guard overL2CAP else { return [] }
        outcome.overL2CAP = true
        return tellConnected()
    }

    private mutating func channelEvent(_ event: MessageChannelEvent, at now: Moment) -> ([Action], [HolderOutput]) {
        switch event {
        case .message(let message):
            // The start's own input may come after the first message.
            let told = tellConnected()
            messageReceived = true
            return (told, holder.receive(message, at: now.date))
        case .closed(let reason):
            return ([], closed(reason))
        }
    }

    private mutating func tellConnected() -> [Action] {
        guard !connectedTold else { return [] }
        connectedTold = true
        return [.report(.readerConnected)]
    }

    /// The channel in use is over for `reason` (the peer's end, a disconnect, a protocol
    /// error); the engine hears the transport closed.
    private mutating func closed(_ reason: BLESessionEndReason) -> [HolderOutput] {
        guard channelOpen else { return [] }
        phase = .finished
        if outcome.transportEnd == nil { outcome.transportEnd = reason }
        return holder.transportClosed()
    }

    // MARK: - The clock

    private mutating func tick(outputWaitingSince waiting: ContinuousClock.Instant?, at now: Moment)
        -> ([Action], [HolderOutput])
    {
        var outputs = holder.tick(at: now.date)
        guard channelOpen else { return ([], outputs) }
        var endingSince: ContinuousClock.Instant?
        if case .ending(let since) = phase { endingSince = since }
        if [waiting, endingSince].contains(where: { $0.map { now.instant - $0 >= timeouts.drain } ?? false }) {
            // The reader does not take what is queued (it never subscribed, or stopped
            // reading), or the link outlives the session: drop it.
            outcome.timedOut = outcome.timedOut ?? .drain
            outputs += closed(.disconnected)
            return ([.drop], outputs)
        }
        guard endingSince == nil, let arrived = readerArrivedAt else { return ([], outputs) }
        let elapsed = now.instant - arrived
        let limit: ProximityTimeout? =
            !messageReceived && elapsed >= timeouts.firstRequest
            ? .firstRequest : elapsed >= timeouts.session ? .session : nil
        guard let limit else { return ([], outputs) }
        outcome.timedOut = limit
        phase = .ending(since: now.instant)
        let ending = holder.end()
        // The engine had already ended, or never started: end the link the same way.
        return (ending.isEmpty ? endLink(readerEnded: false, at: now) : [], outputs + ending)
    }

    // MARK: - The engine's outputs

    /// Carries out the engine's outputs in order; those they bring (the link closing) follow.
    private mutating func route(_ outputs: [HolderOutput], at now: Moment) -> [Action] {
        var queue = outputs[...]
        var actions: [Action] = []
        while let output = queue.popFirst() {
            switch output {
            case .send(let bytes):
                if channelOpen { actions.append(.send(bytes)) }
            case .consentNeeded(let request):
                actions.append(.askConsent(request))
            case .responded(let records):
                outcome.records += records
                actions.append(.report(.responded(records)))
            case .requestReceived(let docTypes, let requester):
                actions.append(.report(.requestReceived(docTypes: docTypes, requester: requester)))
            case .terminated(let reason):
                outcome.holderEnd = reason
                actions += endLink(readerEnded: reason == .readerEnded, at: now)
            }
        }
        return actions
    }

    /// Ends the session on the link: the channel closes (what is queued drains within its
    /// bound, then the transport's end: State 0x02 on GATT, the socket closing on L2CAP),
    /// unless the reader ended it (status 20): it disconnects, nothing more is said, and the
    /// link is let go as the session is over.
    private mutating func endLink(readerEnded: Bool, at now: Moment) -> [Action] {
        if readerEnded {
            phase = .finished
            return []
        }
        if case .connected = phase { phase = .ending(since: now.instant) }
        guard channelOpen, !closing else { return [] }
        closing = true
        return [.close]
    }
}

/// One BLE connection of the holder, without I/O: GATT events in, chunks, State values,
/// reader messages and the end of the session out (ISO 18013-5 8.3.3.1.1).
///
/// The GATT layer feeds ``BLESessionEvent``s through ``handle(_:)`` and carries out the
/// returned ``BLESessionOutput``s in order; the presentation engine gets the messages and
/// hands back its own through ``BLESessionEvent/send(_:)``.
///
/// Peripheral-server mode (the holder serves the GATT service): the reader subscribes to
/// Server2Client and writes State 0x01; then its messages arrive as Client2Server chunks and
/// ours leave as Server2Client notifications, one at a time.
///
/// Central-client mode (the reader serves it): the holder reads the reader's Ident and
/// compares it with the value derived from its engagement before anything else; only on a
/// match does it subscribe, write State 0x01 and exchange messages (reader → holder as
/// Server2Client notifications, holder → reader as Client2Server writes).
///
/// Either side ends with State 0x02, or the connection drops. No reader message is ever
/// delivered before the session started, and nothing is sent before it started.
public struct BLESession: Sendable {
    /// Which side serves the GATT service.
    public enum Mode: Sendable, Hashable {
        /// The holder is the GATT server (peripheral) and the reader the client.
        case peripheralServer
        /// The holder is the GATT client (central); the reader's Ident must equal
        /// `expectedIdent`, derived by the caller from the engagement's EDeviceKeyBytes.
        case centralClient(expectedIdent: BLEIdent)
    }

    /// Where the session is.
    public enum State: Sendable, Hashable {
        /// Central-client: waiting for the reader's Ident.
        case awaitingIdent
        /// Peripheral-server: waiting for the reader's State 0x01. Central-client: Ident
        /// verified, waiting for our subscription.
        case awaitingStart
        /// Messages flow both ways.
        case active
        /// The holder asked to end: queued messages drain, then State 0x02.
        case ending
        case ended(BLESessionEndReason)
    }

    public let mode: Mode
    public private(set) var state: State
    /// Whether chunks may be sent (notifications enabled).
    public private(set) var isSubscribed = false
    private var assembler: MessageAssembler
    private var sender: NotificationSender

    /// - Parameters:
    ///   - mtu: the ATT MTU if already known; feed ``BLESessionEvent/mtuChanged(_:)`` when it
    ///     becomes known. 23 (the ATT minimum) is always safe but slow.
    ///   - maximumMessageSize: the largest reader message accepted.
    /// - Throws: ``BLETransportError/invalidMTU(_:)``.
    public init(
        mode: Mode, mtu: Int = MessageFragmenter.minimumMTU,
        maximumMessageSize: Int = MessageAssembler.defaultMaximumMessageSize
    ) throws(BLETransportError) {
        self.mode = mode
        self.sender = NotificationSender(fragmenter: try MessageFragmenter(mtu: mtu))
        self.assembler = MessageAssembler(maximumMessageSize: maximumMessageSize)
        switch mode {
        case .peripheralServer: state = .awaitingStart
        case .centralClient: state = .awaitingIdent
        }
    }

    public var isEnded: Bool {
        if case .ended = state { return true }
        return false
    }

    /// Whether the session started (State 0x01) and has not ended.
    public var hasStarted: Bool {
        switch state {
        case .active, .ending: return true
        case .awaitingIdent, .awaitingStart, .ended: return false
        }
    }

    /// The outgoing transfer's progress.
    public var progress: TransferProgress { sender.progress }

    /// Whether messages of the holder wait to be sent or are being sent (a reader that never
    /// subscribes keeps them waiting).
    public var hasPendingOutput: Bool { !sender.isIdle }

    /// The ATT MTU used for messages begun from now on.
    public var mtu: Int { sender.fragmenter.mtu }

    /// Takes one event; returns what to do, in order. After the session ended every event
    /// returns nothing.
    public mutating func handle(_ event: BLESessionEvent) -> [BLESessionOutput] {
        guard !isEnded else { return [] }
        switch event {
        case .mtuChanged(let mtu):
            if let fragmenter = try? MessageFragmenter(mtu: mtu) { sender.fragmenter = fragmenter }
            return []
        case .identRead(let value):
            return identRead(value)
        case .subscribed:
            return subscribe()
        case .unsubscribed:
            isSubscribed = false
            return []
        case .stateReceived(let value):
            return stateReceived(value)
        case .chunkReceived(let chunk):
            return chunkReceived(chunk)
        case .chunkSent:
            return chunkSent()
        case .disconnected:
            let delivered = sender.messagesCompleted > 0 && sender.isIdle
            return finish(delivered ? .disconnectedAfterResponse : .disconnected)
        case .send(let message):
            return send(message)
        case .end:
            return end()
        }
    }

    // MARK: - Start

    private mutating func identRead(_ value: [UInt8]?) -> [BLESessionOutput] {
        guard case .centralClient(let expected) = mode, state == .awaitingIdent else { return [] }
        guard let value else { return finish(.protocolError(.readerIdentMissing)) }
        guard expected.matches(value) else { return finish(.protocolError(.readerIdentMismatch)) }
        state = .awaitingStart
        var outputs: [BLESessionOutput] = [.readerIdentVerified]
        if isSubscribed { outputs += start() }
        return outputs
    }

    private mutating func subscribe() -> [BLESessionOutput] {
        isSubscribed = true
        switch (mode, state) {
        case (.centralClient, .awaitingStart):
            return start()
        case (_, .active), (_, .ending):
            return sendNextChunk()
        default:
            return []
        }
    }

    /// Central-client: we write State 0x01 once subscribed.
    private mutating func start() -> [BLESessionOutput] {
        state = .active
        return [.sendState(.start), .sessionStarted] + sendNextChunk()
    }

    private mutating func stateReceived(_ value: [UInt8]) -> [BLESessionOutput] {
        switch BLEStateValue(value: value) {
        case .end:
            return finish(.readerEnded)
        case .start:
            // Only the GATT client starts; a repeated start is harmless.
            guard mode == .peripheralServer, state == .awaitingStart else { return [] }
            state = .active
            return [.sessionStarted] + sendNextChunk()
        case nil:
            // Unknown State values are ignored, as multipaz does.
            return []
        }
    }

    // MARK: - Receiving

    private mutating func chunkReceived(_ chunk: [UInt8]) -> [BLESessionOutput] {
        switch state {
        case .awaitingIdent, .awaitingStart:
            return finish(.protocolError(.dataBeforeStart))
        case .ending, .ended:
            // The holder is ending: nothing the reader sends matters now.
            return []
        case .active:
            do {
                guard let message = try assembler.append(chunk) else { return [] }
                return [.messageReceived(message)]
            } catch {
                return finish(.protocolError(error))
            }
        }
    }

    // MARK: - Sending

    private mutating func send(_ message: [UInt8]) -> [BLESessionOutput] {
        switch state {
        case .awaitingIdent, .awaitingStart, .active:
            sender.enqueue(message)
            return sendNextChunk()
        case .ending, .ended:
            return []
        }
    }

    private mutating func chunkSent() -> [BLESessionOutput] {
        guard sender.hasChunkInFlight else { return [] }
        sender.chunkSent()
        var outputs: [BLESessionOutput] = [.progress(sender.progress)]
        outputs += sendNextChunk()
        if state == .ending, sender.isIdle {
            outputs += finish(.holderEnded)
        }
        return outputs
    }

    /// The next chunk, when the session runs, notifications are on and none is in flight.
    private mutating func sendNextChunk() -> [BLESessionOutput] {
        guard state == .active || state == .ending, isSubscribed, let chunk = sender.nextChunk() else { return [] }
        return [.sendChunk(chunk)]
    }

    // MARK: - End

    private mutating func end() -> [BLESessionOutput] {
        switch state {
        case .awaitingIdent, .awaitingStart:
            return finish(.holderEnded)
        case .active:
            guard sender.isIdle else {
                state = .ending
                return []
            }
            return finish(.holderEnded)
        case .ending, .ended:
            return []
        }
    }

    /// Ends the session. State 0x02 goes to the reader when the session had started and the
    /// holder ends it (by choice or on a protocol error); not when the reader ended it or the
    /// link is gone, and never before the session started (so never to a reader whose Ident
    /// did not match).
    private mutating func finish(_ reason: BLESessionEndReason) -> [BLESessionOutput] {
        var outputs: [BLESessionOutput] = []
        let started = state == .active || state == .ending
        switch reason {
        case .holderEnded, .protocolError:
            if started { outputs.append(.sendState(.end)) }
        case .readerEnded, .disconnected, .disconnectedAfterResponse:
            break
        }
        let interrupted: TransferProgress? = sender.isIdle ? nil : sender.cancel()
        assembler.reset()
        state = .ended(reason)
        outputs.append(.sessionEnded(reason, interruptedTransfer: interrupted))
        return outputs
    }
}

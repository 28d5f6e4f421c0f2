/// One BLE connection, without I/O, for either side and either GATT role: GATT events in,
/// chunks, State values, the peer's messages and the end of the session out (ISO 18013-5
/// 8.3.3.1.1).
///
/// The GATT layer feeds ``BLESessionEvent``s through ``handle(_:)`` and carries out the
/// returned ``BLESessionOutput``s in order; the presentation engine gets the messages and
/// hands back its own through ``BLESessionEvent/send(_:)``.
///
/// GATT server role (the holder in mdoc peripheral-server mode, the reader in mdoc
/// central-client mode): the client subscribes to Server2Client and writes State 0x01; then
/// its messages arrive as Client2Server chunks and ours leave as Server2Client
/// notifications, one at a time.
///
/// GATT client role (the holder in central-client mode, the reader in peripheral-server
/// mode): with an expected Ident (the holder) the client reads the server's Ident and
/// compares it with the value derived from its engagement before anything else; only on a
/// match does it subscribe. Once subscribed it writes State 0x01 and exchanges messages
/// (server → client as Server2Client notifications, client → server as Client2Server
/// writes).
///
/// Either side ends with State 0x02, or the connection drops. No message of the peer is ever
/// delivered before the session started, and nothing is sent before it started.
public struct BLESession: Sendable {
    /// Which GATT role this side plays.
    public enum Role: Sendable, Hashable {
        /// This side serves the mdoc GATT service.
        case gattServer
        /// This side is the GATT client. With `expectedIdent` (the holder in central-client
        /// mode, derived from its engagement's EDeviceKeyBytes) the server's Ident must
        /// match before the session starts; without (the reader), the session starts once
        /// subscribed.
        case gattClient(expectedIdent: BLEIdent?)
    }

    /// Where the session is.
    public enum State: Sendable, Hashable {
        /// GATT client with an expected Ident: waiting for the server's Ident.
        case awaitingIdent
        /// GATT server: waiting for the client's State 0x01. GATT client: waiting for our
        /// subscription (after the Ident matched, when one is expected).
        case awaitingStart
        /// Messages flow both ways.
        case active
        /// This side asked to end: queued messages drain, then State 0x02.
        case ending
        case ended(BLESessionEndReason)
    }

    public let role: Role
    public private(set) var state: State
    /// Whether chunks may be sent (notifications enabled).
    public private(set) var isSubscribed = false
    private var assembler: MessageAssembler
    private var sender: NotificationSender

    /// - Parameters:
    ///   - mtu: the ATT MTU if already known; feed ``BLESessionEvent/mtuChanged(_:)`` when it
    ///     becomes known. 23 (the ATT minimum) is always safe but slow.
    ///   - maximumMessageSize: the largest message of the peer accepted
    ///     (``MessageSizeLimit``).
    /// - Throws: ``BLETransportError/invalidMTU(_:)``.
    public init(role: Role, mtu: Int = MessageFragmenter.minimumMTU, maximumMessageSize: Int)
        throws(BLETransportError)
    {
        self.role = role
        self.sender = NotificationSender(fragmenter: try MessageFragmenter(mtu: mtu))
        self.assembler = MessageAssembler(maximumMessageSize: maximumMessageSize)
        switch role {
        case .gattServer, .gattClient(expectedIdent: nil): state = .awaitingStart
        case .gattClient: state = .awaitingIdent
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

    /// Whether messages of ours wait to be sent or are being sent (a peer that never
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
        guard case .gattClient(let expected?) = role, state == .awaitingIdent else { return [] }
        guard let value else { return finish(.protocolError(.identMissing)) }
        guard expected.matches(value) else { return finish(.protocolError(.identMismatch)) }
        state = .awaitingStart
        var outputs: [BLESessionOutput] = [.identVerified]
        if isSubscribed { outputs += start() }
        return outputs
    }

    private mutating func subscribe() -> [BLESessionOutput] {
        isSubscribed = true
        switch (role, state) {
        case (.gattClient, .awaitingStart):
            return start()
        case (_, .active), (_, .ending):
            return sendNextChunk()
        default:
            return []
        }
    }

    /// GATT client: we write State 0x01 once subscribed.
    private mutating func start() -> [BLESessionOutput] {
        state = .active
        return [.sendState(.start), .sessionStarted] + sendNextChunk()
    }

    private mutating func stateReceived(_ value: [UInt8]) -> [BLESessionOutput] {
        switch BLEStateValue(value: value) {
        case .end:
            return finish(.peerEnded)
        case .start:
            // Only the GATT client starts; a repeated start is harmless.
            guard role == .gattServer, state == .awaitingStart else { return [] }
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
            // This side is ending: nothing the peer sends matters now.
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
            outputs += finish(.localEnded)
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
            return finish(.localEnded)
        case .active:
            guard sender.isIdle else {
                state = .ending
                return []
            }
            return finish(.localEnded)
        case .ending, .ended:
            return []
        }
    }

    /// Ends the session. State 0x02 goes to the peer when the session had started and this
    /// side ends it (by choice or on a protocol error); not when the peer ended it or the
    /// link is gone, and never before the session started (so never to a server whose Ident
    /// did not match).
    private mutating func finish(_ reason: BLESessionEndReason) -> [BLESessionOutput] {
        var outputs: [BLESessionOutput] = []
        let started = state == .active || state == .ending
        switch reason {
        case .localEnded, .protocolError:
            if started { outputs.append(.sendState(.end)) }
        case .peerEnded, .disconnected, .disconnectedAfterResponse:
            break
        }
        let interrupted: TransferProgress? = sender.isIdle ? nil : sender.cancel()
        assembler.reset()
        state = .ended(reason)
        outputs.append(.sessionEnded(reason, interruptedTransfer: interrupted))
        return outputs
    }
}

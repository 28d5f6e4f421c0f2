import BLETestSupport
import BLETransport
import Testing

/// The holder as GATT server: start, messages both ways, and every way a session ends.
struct PeripheralServerSessionTests {
    static let request = [UInt8](repeating: 0xA1, count: 700)
    static let response: [UInt8] = {
        var rng = SeededGenerator(seed: 7)
        return rng.bytes(100_000)
    }()

    /// Subscribed and started at MTU 517, as a reader does it.
    static func started(maximumMessageSize: Int = MessageSizeLimit.request) throws -> SessionDriver {
        var d = SessionDriver(
            try BLESession(role: .gattServer, mtu: 517, maximumMessageSize: maximumMessageSize))
        #expect(d.feed(.subscribed) == [])
        #expect(d.feed(.stateReceived([0x01])) == [.sessionStarted])
        return d
    }

    @Test func theReaderStartsTheSessionWithStateStart() throws {
        var session = try BLESession(role: .gattServer, maximumMessageSize: MessageSizeLimit.request)
        #expect(session.state == .awaitingStart)
        #expect(session.handle(.subscribed) == [])
        #expect(session.handle(.stateReceived([0x01])) == [.sessionStarted])
        #expect(session.state == .active)
        // A repeated start changes nothing.
        #expect(session.handle(.stateReceived([0x01])) == [])
    }

    @Test func noMessageIsDeliveredBeforeStateStart() throws {
        var d = SessionDriver(try BLESession(role: .gattServer, maximumMessageSize: MessageSizeLimit.request))
        d.feed(.subscribed)
        d.feed(.chunkReceived([0x00, 0xA0]))
        #expect(d.delivered.isEmpty)
        #expect(d.ended?.0 == .protocolError(.dataBeforeStart))
        #expect(d.stateSent.isEmpty)  // no session, nothing to end
        // A start after that is too late.
        #expect(d.feed(.stateReceived([0x01])) == [])
        #expect(d.delivered.isEmpty)
    }

    @Test func aRequestIsDeliveredWhole() throws {
        var d = try Self.started()
        try d.readerSends(Self.request, mtu: 23)
        #expect(d.delivered == [Self.request])
        try d.readerSends([])
        #expect(d.delivered == [Self.request, []])
    }

    @Test func aLongResponseGoesOutOneChunkAtATimeWithProgress() throws {
        var d = try Self.started()
        try d.readerSends(Self.request)
        d.feed(.send(Self.response))
        #expect(d.readerReceived == [Self.response])
        #expect(!d.twoChunksInFlight)
        #expect(d.chunksSent == 196)  // 100 000 / 511, rounded up
        let progress = d.outputs.compactMap {
            if case .progress(let p) = $0 { return p }
            return nil
        }
        #expect(progress.count == 196)
        #expect(progress.map(\.bytesSent) == progress.map(\.bytesSent).sorted())
        #expect(progress.first?.bytesSent == 511)
        #expect(
            progress.last == TransferProgress(bytesSent: 100_000, totalBytes: 100_000, messagesSent: 1, messageCount: 1)
        )
    }

    @Test func everyChunkFitsTheMTU() throws {
        var d = SessionDriver(try BLESession(role: .gattServer, maximumMessageSize: MessageSizeLimit.request))
        d.feed(.mtuChanged(185))
        d.feed(.mtuChanged(5))  // nonsense is ignored
        #expect(d.session.mtu == 185)
        d.feed(.subscribed)
        d.feed(.stateReceived([0x01]))
        d.feed(.send(Self.response))
        let sizes = d.outputs.compactMap {
            if case .sendChunk(let c) = $0 { return c.count }
            return nil
        }
        #expect(sizes.max() == 182)
        #expect(d.readerReceived == [Self.response])
    }

    @Test func stateEndFromTheReaderEndsTheSession() throws {
        var d = try Self.started()
        try d.readerSends(Self.request)
        d.feed(.send(Self.response))
        #expect(d.feed(.stateReceived([0x02])) == [.sessionEnded(.peerEnded, interruptedTransfer: nil)])
        #expect(d.session.state == .ended(.peerEnded))
        #expect(d.stateSent.isEmpty)
    }

    @Test func stateEndFromTheReaderMidTransferReportsHowFarItGot() throws {
        var d = try Self.started()
        d.confirmChunks = false
        d.feed(.send(Self.response))
        for _ in 0..<10 { d.feed(.chunkSent) }
        let out = d.feed(.stateReceived([0x02]))
        #expect(
            out == [
                .sessionEnded(
                    .peerEnded,
                    interruptedTransfer: TransferProgress(
                        bytesSent: 5110, totalBytes: 100_000, messagesSent: 0, messageCount: 1))
            ])
        // The transfer stopped: nothing more is sent.
        #expect(d.feed(.chunkSent) == [])
        #expect(d.chunksSent == 11)
    }

    @Test func aDisconnectBeforeTheResponseIsAFailure() throws {
        var d = try Self.started()
        try d.readerSends(Self.request)
        #expect(d.feed(.disconnected) == [.sessionEnded(.disconnected, interruptedTransfer: nil)])
        #expect(!BLESessionEndReason.disconnected.isOrderly)
    }

    @Test func aDisconnectBeforeTheStartIsAFailure() throws {
        var d = SessionDriver(try BLESession(role: .gattServer, maximumMessageSize: MessageSizeLimit.request))
        d.feed(.subscribed)
        #expect(d.feed(.disconnected) == [.sessionEnded(.disconnected, interruptedTransfer: nil)])
    }

    @Test func aDisconnectAfterTheResponseIsASuccess() throws {
        var d = try Self.started()
        try d.readerSends(Self.request)
        d.feed(.send(Self.response))
        #expect(d.feed(.disconnected) == [.sessionEnded(.disconnectedAfterResponse, interruptedTransfer: nil)])
        #expect(BLESessionEndReason.disconnectedAfterResponse.isOrderly)
    }

    @Test func aDisconnectMidResponseIsAFailureWithTheProgress() throws {
        var d = try Self.started()
        try d.readerSends(Self.request)
        d.confirmChunks = false
        d.feed(.send(Self.response))
        d.feed(.chunkSent)
        let out = d.feed(.disconnected)
        #expect(
            out == [
                .sessionEnded(
                    .disconnected,
                    interruptedTransfer: TransferProgress(
                        bytesSent: 511, totalBytes: 100_000, messagesSent: 0, messageCount: 1))
            ])
    }

    @Test func aDisconnectDuringASecondResponseIsAFailure() throws {
        var d = try Self.started()
        d.feed(.send([1, 2, 3]))
        d.confirmChunks = false
        d.feed(.send(Self.response))
        guard case .disconnected = try #require(d.feed(.disconnected).last).endReason else {
            Issue.record("expected a plain disconnect")
            return
        }
    }

    @Test func theHolderEndsAfterItsQueuedMessages() throws {
        var d = try Self.started()
        d.confirmChunks = false
        d.feed(.send(Self.response))
        #expect(d.feed(.end) == [])
        #expect(d.session.state == .ending)
        #expect(d.feed(.send([9])) == [])  // nothing new once ending
        try d.readerSends(Self.request)
        #expect(d.delivered.isEmpty)  // nor anything from the reader
        var last: [BLESessionOutput] = []
        while !d.session.isEnded { last = d.feed(.chunkSent) }
        #expect(d.readerReceived == [Self.response])
        #expect(
            last.suffix(2) == [.sendState(.end), .sessionEnded(.localEnded, interruptedTransfer: nil)])
    }

    @Test func theHolderEndsAtOnceWhenIdle() throws {
        var d = try Self.started()
        #expect(d.feed(.end) == [.sendState(.end), .sessionEnded(.localEnded, interruptedTransfer: nil)])
    }

    @Test func theHolderEndingBeforeTheStartSendsNoState() throws {
        var d = SessionDriver(try BLESession(role: .gattServer, maximumMessageSize: MessageSizeLimit.request))
        #expect(d.feed(.end) == [.sessionEnded(.localEnded, interruptedTransfer: nil)])
    }

    @Test func aBadChunkHeaderEndsWithAProtocolError() throws {
        var d = try Self.started()
        #expect(
            d.feed(.chunkReceived([0x05, 1]))
                == [.sendState(.end), .sessionEnded(.protocolError(.unknownChunkHeader(5)), interruptedTransfer: nil)])
    }

    @Test func anEmptyChunkEndsWithAProtocolError() throws {
        var d = try Self.started()
        #expect(d.feed(.chunkReceived([])).last == .sessionEnded(.protocolError(.emptyChunk), interruptedTransfer: nil))
    }

    @Test func anOversizeRequestEndsWithAProtocolError() throws {
        var d = try Self.started(maximumMessageSize: 1000)
        try d.readerSends([UInt8](repeating: 1, count: 5000))
        #expect(d.delivered.isEmpty)
        #expect(d.ended?.0 == .protocolError(.messageTooLarge(size: 1022, limit: 1000)))
    }

    @Test func chunksWaitForTheSubscription() throws {
        var d = SessionDriver(try BLESession(role: .gattServer, maximumMessageSize: MessageSizeLimit.request))
        d.feed(.stateReceived([0x01]))
        #expect(d.feed(.send([1, 2, 3])) == [])
        #expect(d.feed(.subscribed).first == .sendChunk([0x00, 1, 2, 3]))
        #expect(d.readerReceived == [[1, 2, 3]])
        // Unsubscribed: held again.
        d.feed(.unsubscribed)
        #expect(d.feed(.send([4])) == [])
        #expect(d.feed(.subscribed).first == .sendChunk([0x00, 4]))
    }

    @Test func unknownStateValuesAreIgnored() throws {
        var d = try Self.started()
        #expect(d.feed(.stateReceived([0x03])) == [])
        #expect(d.feed(.stateReceived([])) == [])
        #expect(d.feed(.stateReceived([0x02, 0x02])) == [])
        #expect(d.session.state == .active)
    }

    @Test func nothingHappensAfterTheEnd() throws {
        var d = try Self.started()
        d.feed(.disconnected)
        for event: BLESessionEvent in [
            .subscribed, .stateReceived([1]), .chunkReceived([0, 1]), .send([1]), .chunkSent, .end, .disconnected,
        ] {
            #expect(d.feed(event) == [])
        }
    }
}

extension BLESessionOutput {
    var endReason: BLESessionEndReason? {
        if case .sessionEnded(let reason, _) = self { return reason }
        return nil
    }
}

import BLETransport
import Testing

/// The holder as GATT client: the reader's Ident is checked before anything is sent.
struct CentralClientSessionTests {
    static let ident = BLEIdent(bytes: [UInt8](0x10..<0x20))!

    static func session() throws -> SessionDriver {
        SessionDriver(
            try BLESession(
                role: .gattClient(expectedIdent: ident), mtu: 247, maximumMessageSize: MessageSizeLimit.request))
    }

    @Test func aMatchingIdentLetsTheHolderStartTheSession() throws {
        var d = try Self.session()
        #expect(d.session.state == .awaitingIdent)
        #expect(d.feed(.identRead(Self.ident.bytes)) == [.identVerified])
        #expect(d.session.state == .awaitingStart)
        #expect(d.feed(.subscribed) == [.sendState(.start), .sessionStarted])
        #expect(d.session.state == .active)
    }

    @Test func aWrongIdentIsRefusedAndNothingIsSent() throws {
        var d = try Self.session()
        d.feed(.subscribed)
        d.feed(.send([1, 2, 3]))
        var wrong = Self.ident.bytes
        wrong[0] ^= 0x80
        #expect(
            d.feed(.identRead(wrong))
                == [.sessionEnded(.protocolError(.identMismatch), interruptedTransfer: [1, 2, 3].progress)])
        #expect(d.chunksSent == 0)
        #expect(d.stateSent.isEmpty)
    }

    @Test(arguments: [[UInt8](), [UInt8](0x10..<0x1F), [UInt8](0x10..<0x21)])
    func anIdentOfTheWrongLengthIsRefused(_ value: [UInt8]) throws {
        var d = try Self.session()
        #expect(d.feed(.identRead(value)).last?.endReason == .protocolError(.identMismatch))
        #expect(d.stateSent.isEmpty)
    }

    @Test func aMissingIdentIsRefused() throws {
        var d = try Self.session()
        #expect(
            d.feed(.identRead(nil)) == [.sessionEnded(.protocolError(.identMissing), interruptedTransfer: nil)])
        #expect(d.stateSent.isEmpty)
    }

    @Test func nothingIsSentBeforeTheIdentIsChecked() throws {
        var d = try Self.session()
        #expect(d.feed(.subscribed) == [])
        #expect(d.feed(.send([7, 7])) == [])
        #expect(d.feed(.end) == [.sessionEnded(.localEnded, interruptedTransfer: [7, 7].progress)])
        #expect(d.chunksSent == 0)
        #expect(d.stateSent.isEmpty)
    }

    @Test func dataBeforeTheIdentIsAProtocolError() throws {
        var d = try Self.session()
        #expect(d.feed(.chunkReceived([0x00, 1])).last?.endReason == .protocolError(.dataBeforeStart))
        #expect(d.delivered.isEmpty)
    }

    @Test func messagesFlowOnceStarted() throws {
        var d = try Self.session()
        d.feed(.identRead(Self.ident.bytes))
        d.feed(.subscribed)
        let request = [UInt8](repeating: 3, count: 1000)
        try d.readerSends(request, mtu: 247)
        #expect(d.delivered == [request])
        let response = [UInt8](repeating: 4, count: 5000)
        d.feed(.send(response))
        #expect(d.readerReceived == [response])
        #expect(!d.twoChunksInFlight)
        #expect(d.feed(.stateReceived([0x02])) == [.sessionEnded(.peerEnded, interruptedTransfer: nil)])
    }

    @Test func aSubscriptionBeforeTheIdentStartsOnceTheIdentMatches() throws {
        var d = try Self.session()
        d.feed(.subscribed)
        d.feed(.send([5]))
        #expect(
            d.feed(.identRead(Self.ident.bytes)) == [
                .identVerified, .sendState(.start), .sessionStarted, .sendChunk([0x00, 5]),
            ])
    }

    @Test func aPeripheralSessionIgnoresIdentReads() throws {
        var session = try BLESession(role: .gattServer, maximumMessageSize: MessageSizeLimit.request)
        #expect(session.handle(.identRead(nil)) == [])
        #expect(session.state == .awaitingStart)
    }
}

extension [UInt8] {
    /// The progress of a transfer of this one message with nothing sent yet.
    var progress: TransferProgress { TransferProgress(totalBytes: count, messageCount: 1) }
}

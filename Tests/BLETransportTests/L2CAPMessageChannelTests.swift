import BLETestSupport
import BLETransport
import Testing

/// ``L2CAPMessageChannel`` as a ``MessageChannel``: frames in, messages out, and the three
/// ways it closes.
struct L2CAPMessageChannelTests {
    @Test func aZeroLengthFrameIsThePeerEnding() async throws {
        let (ours, theirs) = InMemoryL2CAPChannel.pair()
        let channel = L2CAPMessageChannel(channel: ours, maximumMessageSize: 1024)
        try await theirs.send(try L2CAPFraming.frame([1, 2]) + L2CAPFraming.frame([]))
        #expect(await channel.receive(timeout: .seconds(30)) == .message([1, 2]))
        #expect(await channel.receive(timeout: .seconds(30)) == .closed(.peerEnded))
        #expect(await channel.receive(timeout: .seconds(30)) == .closed(.peerEnded))
        #expect(ours.isClosed)
    }

    @Test func aFrameOverTheLimitClosesWithAProtocolError() async throws {
        let (ours, theirs) = InMemoryL2CAPChannel.pair()
        let channel = L2CAPMessageChannel(channel: ours, maximumMessageSize: 10)
        try await theirs.send([0, 0, 0, 11])
        #expect(
            await channel.receive(timeout: .seconds(30))
                == .closed(.protocolError(.messageTooLarge(size: 11, limit: 10))))
        #expect(ours.isClosed)
    }

    @Test func theChannelClosingAfterOurMessageIsADisconnectAfterResponse() async throws {
        let (ours, theirs) = InMemoryL2CAPChannel.pair()
        ours.keep = theirs
        let channel = L2CAPMessageChannel(channel: ours, maximumMessageSize: 1024)
        #expect(await channel.receive(timeout: .milliseconds(50)) == nil)
        try await channel.send([9])
        #expect(try await theirs.receive() == [0, 0, 0, 1, 9])
        theirs.close()
        #expect(await channel.receive(timeout: .seconds(30)) == .closed(.disconnectedAfterResponse))
        await #expect(throws: MessageChannelError.closed) { try await channel.send([1]) }
    }
}

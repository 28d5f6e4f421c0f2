import BLETestSupport
import BLETransport
import Testing

/// ``MessageChannel``'s contract, the same for every channel: GATT chunks
/// (``GattMessageChannel``, our side serving) and L2CAP frames (``L2CAPMessageChannel``).
/// Messages cross both ways; `close()` lets what is queued go out and says how the session
/// ended; `outputWaitingSince` says since when a message has waited for a peer that does not
/// take it; the drain bound ends a `close()` such a peer holds up; `drop()` ends at once.
struct MessageChannelContractTests {
    enum Kind: String, CaseIterable, Sendable {
        case gatt, l2cap
    }

    /// Our channel and the peer's way to talk to it.
    struct Ends {
        let ours: any MessageChannel
        let peerSend: @Sendable ([UInt8]) async throws -> Void
        let peerReceive: @Sendable () async -> MessageChannelEvent?
        /// The peer ends the session: State 0x02 (GATT), a zero-length frame (L2CAP).
        let peerEnds: @Sendable () async throws -> Void
    }

    static let uuid = BluetoothUUID(high: 0x1234, low: 0x5678)

    /// Both ends, with the peer taking what we send, or (`stalled`) taking nothing: a GATT
    /// client that never subscribes, an L2CAP peer whose socket is full.
    static func ends(_ kind: Kind, drain: Duration = .seconds(10), stalled: Bool = false) async throws -> Ends {
        switch kind {
        case .gatt:
            let wire = InMemoryGattWire()
            let options = GattMessageChannel.Options(maximumMessageSize: MessageSizeLimit.response, drainTimeout: drain)
            let events = try await wire.server.start(.peripheralServer(uuid))
            let ours = try await GattMessageChannel.serving(wire.server, events: events, options: options)
            let connection = try await wire.client.connect(
                serviceUUID: uuid, characteristics: MdocBluetoothUUIDs.peripheralServer)
            if stalled {
                // State 0x01 without a subscription to Server2Client.
                try await wire.client.write(.state, [0x01])
                #expect(await ours.waitUntilStarted(timeout: .seconds(30)))
                return Ends(ours: ours, peerSend: { _ in }, peerReceive: { nil }, peerEnds: {})
            }
            let peer = try await GattMessageChannel.connected(
                wire.client, connection: connection, expectedIdent: nil, options: options)
            #expect(await ours.waitUntilStarted(timeout: .seconds(30)))
            return Ends(
                ours: ours, peerSend: { try await peer.send($0) },
                peerReceive: { await peer.receive(timeout: .seconds(30)) },
                peerEnds: { await peer.close() })
        case .l2cap:
            let (socket, theirs) = InMemoryL2CAPChannel.pair()
            socket.keep = theirs
            socket.stallSends = stalled
            let ours = L2CAPMessageChannel(
                channel: socket, maximumMessageSize: MessageSizeLimit.response, drainTimeout: drain)
            let peer = L2CAPMessageChannel(channel: theirs, maximumMessageSize: MessageSizeLimit.response)
            return Ends(
                ours: ours, peerSend: { try await peer.send($0) },
                peerReceive: { await peer.receive(timeout: .seconds(30)) },
                peerEnds: { try await theirs.send(try L2CAPFraming.frame([])) })
        }
    }

    @Test(arguments: Kind.allCases)
    func messagesCrossAndCloseEndsAsAsked(_ kind: Kind) async throws {
        let ends = try await Self.ends(kind)
        try await ends.peerSend([1, 2, 3])
        #expect(await ends.ours.receive(timeout: .seconds(30)) == .message([1, 2, 3]))
        let response = (0..<5000).map { UInt8(truncatingIfNeeded: $0) }
        try await ends.ours.send(response)
        // Queued: close() lets it go out before the session ends.
        #expect(await ends.ours.close() == .localEnded)
        #expect(await ends.peerReceive() == .message(response))
        guard case .closed(let reason) = await ends.peerReceive() else {
            Issue.record("the peer did not see the end")
            return
        }
        #expect(reason.isOrderly)
        #expect(await ends.ours.receive(timeout: .seconds(30)) == .closed(.localEnded))
        await #expect(throws: MessageChannelError.closed) { try await ends.ours.send([1]) }
    }

    @Test(arguments: Kind.allCases)
    func closeSaysThePeerEndedFirst(_ kind: Kind) async throws {
        let ends = try await Self.ends(kind)
        try await ends.peerEnds()
        #expect(await ends.ours.receive(timeout: .seconds(30)) == .closed(.peerEnded))
        #expect(await ends.ours.close() == .peerEnded)
    }

    @Test(arguments: Kind.allCases)
    func aMessageThePeerDoesNotTakeWaitsUntilDropped(_ kind: Kind) async throws {
        let ends = try await Self.ends(kind, stalled: true)
        #expect(await ends.ours.outputWaitingSince == nil)
        let before = ContinuousClock.now
        try await ends.ours.send([UInt8](repeating: 7, count: 600))
        let since = try #require(await Self.waitingSince(ends.ours))
        #expect(since >= before)
        await ends.ours.drop()
        #expect(await ends.ours.receive(timeout: .seconds(30)) == .closed(.disconnected))
        #expect(await ends.ours.outputWaitingSince == nil)
        #expect(await ends.ours.close() == .disconnected)
    }

    @Test(arguments: Kind.allCases)
    func theDrainBoundEndsACloseThePeerHoldsUp(_ kind: Kind) async throws {
        let ends = try await Self.ends(kind, drain: .milliseconds(200), stalled: true)
        try await ends.ours.send([UInt8](repeating: 7, count: 600))
        _ = await Self.waitingSince(ends.ours)
        let began = ContinuousClock.now
        #expect(await ends.ours.close() == .disconnected)
        let took = ContinuousClock.now - began
        #expect(took >= .milliseconds(200))
        #expect(took < .seconds(20))
        #expect(await ends.ours.receive(timeout: .seconds(30)) == .closed(.disconnected))
    }

    /// The channel's `outputWaitingSince` once it is set (a writer sets it as it begins).
    static func waitingSince(_ channel: any MessageChannel) async -> ContinuousClock.Instant? {
        for _ in 0..<3000 {
            if let since = await channel.outputWaitingSince { return since }
            try? await Task.sleep(for: .milliseconds(10))
        }
        return nil
    }
}

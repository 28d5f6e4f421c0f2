import BLETestSupport
import BLETransport
import Foundation
import ISO18013
import Presentation
import Proximity
import Testing

/// Readers that try to hold the holder: every session still ends within its
/// ``ProximityTimeouts``, and the link is let go (the GATT server stopped, which disconnects
/// the reader).
struct HostileReaderTests {
    /// Runs one session against a reader that does only `behave`, with short timeouts; fails
    /// when the session does not end within `within` (far longer than the timeouts, so that a
    /// loaded machine does not fail it, and far shorter than "forever"). A whole `swift test`
    /// on two busy cores starts hundreds of tests at once and holds up their first 25-30 s:
    /// the bound leaves room for that; the expected `timedOut` says which bound ended it.
    static func run(
        timeouts: ProximityTimeouts, within: Duration = .seconds(90),
        behave: @escaping @Sendable (InMemoryGattServer, ReaderSession) async throws -> Void
    ) async throws -> (ProximitySessionResult, InMemoryGattServer, Duration) {
        let setup = try ProximityHolderTests.Setup()
        let server = InMemoryGattServer()
        var holder = ProximityHolder(
            server: server, credentials: [setup.credential],
            configuration: HolderConfiguration(readerTrustAnchors: [setup.pki.readerCA]),
            consent: ProximityHolderTests.ApproveAll())
        holder.tickInterval = .milliseconds(20)
        holder.timeouts = timeouts
        let box = EngagementBox()
        let clock = ContinuousClock()
        let started = clock.now
        let session = Task { try await holder.runSession(showEngagement: { box.set($0.uri) }) }
        let watchdog = Task {
            try await Task.sleep(for: within)
            session.cancel()
        }
        defer { watchdog.cancel() }
        await server.waitUntilStarted()
        let uri = try #require(box.get())
        let reader = try ReaderSession(
            engagement: DeviceEngagement(uri: uri), trustAnchors: [setup.pki.iaca],
            identity: ReaderIdentity(key: setup.pki.readerKey, chain: [setup.pki.reader]))
        try await behave(server, reader)
        let result = try await session.value
        let elapsed = clock.now - started
        #expect(elapsed < within, "the session outlived its timeouts")
        #expect(await server.stopped, "the link was not let go")
        return (result, server, elapsed)
    }

    @Test func aReaderThatSendsARequestButNeverSubscribesIsDroppedAfterTheDrainTimeout() async throws {
        let (result, server, _) = try await Self.run(
            timeouts: ProximityTimeouts(firstRequest: .seconds(5), session: .seconds(60), drain: .milliseconds(300))
        ) { server, reader in
            var reader = reader
            await server.readerSends(.mtu(517))
            await server.readerSends(.written(.state, [0x01]))
            try await server.readerWrites(
                message: reader.establishment(requesting: [ProximityHolderTests.request]), mtu: 517)
        }
        #expect(result.timedOut == .drain)
        #expect(!result.isSuccess)
        #expect(result.responsesSent == 1)
        // Nothing could be sent: the reader never subscribed.
        #expect(await server.notificationCount == 0)
    }

    @Test func garbageAndNoSubscriptionEndsAsWell() async throws {
        let (result, _, _) = try await Self.run(
            timeouts: ProximityTimeouts(firstRequest: .seconds(5), session: .seconds(60), drain: .milliseconds(300))
        ) { server, _ in
            await server.readerSends(.written(.state, [0x01]))
            await server.readerSends(.written(.client2Server, [0x00, 0xA0]))
        }
        #expect(result.timedOut == .drain)
        #expect(!result.isSuccess)
    }

    @Test func aReaderThatConnectsAndSaysNothingIsDroppedAfterTheFirstRequestTimeout() async throws {
        let (result, _, elapsed) = try await Self.run(
            timeouts: ProximityTimeouts(firstRequest: .milliseconds(300), session: .seconds(60), drain: .seconds(1))
        ) { server, _ in
            await server.readerSends(.subscribed(.server2Client))
        }
        #expect(result.timedOut == .firstRequest)
        #expect(elapsed >= .milliseconds(300))
    }

    @Test func aStartedSessionWithoutARequestIsEndedWithStateEnd() async throws {
        let (result, server, _) = try await Self.run(
            timeouts: ProximityTimeouts(firstRequest: .milliseconds(300), session: .seconds(60), drain: .seconds(1))
        ) { server, _ in
            await server.readerSends(.subscribed(.server2Client))
            await server.readerSends(.written(.state, [0x01]))
        }
        #expect(result.timedOut == .firstRequest)
        #expect(result.transportEnd == .localEnded)
        #expect(await server.stateNotifications() == [[0x02]])
    }

    @Test func aReaderThatKeepsTheSessionBusyMeetsTheSessionLimit() async throws {
        let (result, _, elapsed) = try await Self.run(
            // The session bound leaves room for the request and its response on a loaded
            // machine (at 800 ms the bound sometimes came first there); what follows the
            // response keeps the session busy until the bound ends it.
            timeouts: ProximityTimeouts(firstRequest: .seconds(5), session: .seconds(5), drain: .seconds(1))
        ) { server, reader in
            var reader = reader
            await server.readerSends(.subscribed(.server2Client))
            await server.readerSends(.written(.state, [0x01]))
            try await server.readerWrites(
                message: reader.establishment(requesting: [ProximityHolderTests.request]), mtu: 23)
            _ = try await server.readerReceivesMessage()
            // Then a message that never completes: chunks marked "more follows", forever.
            for _ in 0..<6000 {
                if await server.stopped { break }
                await server.readerSends(.written(.client2Server, [0x01, 0x00]))
                try await Task.sleep(for: .milliseconds(10))
            }
        }
        #expect(result.timedOut == .session)
        #expect(elapsed >= .seconds(5))
        // The response that went out before counts.
        #expect(result.records.map(\.outcome) == [.sent])
    }
}

/// BLE protocol errors are reported as what they are, not as the link closing.
struct ProtocolErrorReportTests {
    static func session(_ behave: @escaping @Sendable (InMemoryGattServer) async -> Void) async throws
        -> ProximitySessionResult
    {
        let (result, _, _) = try await HostileReaderTests.run(
            timeouts: ProximityTimeouts(firstRequest: .seconds(5), session: .seconds(60), drain: .seconds(1))
        ) { server, _ in await behave(server) }
        return result
    }

    @Test func aBadChunkHeaderIsReportedAsSuch() async throws {
        let result = try await Self.session { server in
            await server.readerSends(.subscribed(.server2Client))
            await server.readerSends(.written(.state, [0x01]))
            await server.readerSends(.written(.client2Server, [0x07, 0xA0]))
        }
        #expect(result.transportEnd == .protocolError(.unknownChunkHeader(7)))
        #expect(result.endDescription.contains("header byte 7"))
        #expect(!result.endDescription.contains("closed"))
    }

    @Test func dataBeforeStartIsReportedAsSuch() async throws {
        let result = try await Self.session { server in
            await server.readerSends(.subscribed(.server2Client))
            await server.readerSends(.written(.client2Server, [0x00, 0xA0]))
        }
        #expect(result.transportEnd == .protocolError(.dataBeforeStart))
        #expect(result.endDescription.contains("before the session was started"))
    }
}

/// Over L2CAP, a reader that stops reading fills the socket and blocks the holder's send:
/// the channel is closed after the drain timeout and the session ends.
struct HostileL2CAPReaderTests {
    @Test func aReaderThatStopsReadingIsCutAfterTheDrainTimeout() async throws {
        let setup = try ProximityHolderTests.Setup()
        let server = InMemoryGattServer()
        let listener = InMemoryL2CAPListener(psm: 0x0091)
        var holder = ProximityHolder(
            server: server, credentials: [setup.credential],
            configuration: HolderConfiguration(readerTrustAnchors: [setup.pki.readerCA]),
            consent: ProximityHolderTests.ApproveAll())
        holder.tickInterval = .milliseconds(20)
        holder.timeouts = ProximityTimeouts(firstRequest: .seconds(5), session: .seconds(60), drain: .milliseconds(300))
        holder.l2capListener = { listener }
        let box = EngagementBox()
        let clock = ContinuousClock()
        let started = clock.now
        async let outcome = holder.runSession(showEngagement: { box.set($0.uri) })
        await server.waitUntilStarted()
        var reader = try ReaderSession(
            engagement: try DeviceEngagement(uri: try #require(box.get())), trustAnchors: [setup.pki.iaca],
            identity: ReaderIdentity(key: setup.pki.readerKey, chain: [setup.pki.reader]))
        let channel = listener.connect()
        // The holder's end stalls on send, as a socket whose peer stopped reading does.
        channel.keep?.stallSends = true
        try await channel.send(try L2CAPFraming.frame(reader.establishment(requesting: [ProximityHolderTests.request])))
        let result = try await outcome
        // Far below "forever", with room for a loaded machine (see HostileReaderTests.run).
        #expect(clock.now - started < .seconds(90))
        #expect(result.timedOut == .drain)
        #expect(!result.isSuccess)
        #expect(channel.isClosed)
    }
}

import BLETestSupport
import BLETransport
import Consent
import Foundation
import ISO18013
import MdocCrypto
import Presentation
import Proximity
import Testing

/// The proximity loop in mdoc central-client mode over an in-memory reader GATT service:
/// the holder reads the reader's Ident, subscribes, writes State 0x01, and its chunks go out
/// as Client2Server writes.
struct CentralClientHolderTests {
    typealias Setup = ProximityHolderTests.Setup

    /// The Ident the test's reader serves.
    enum ReaderIdent {
        case right
        case wrong
        case none
    }

    /// Runs the holder in central-client mode and a reader that serves `ident`, asks once
    /// when the holder started the session, then ends the way `finish` says.
    static func present(
        _ setup: Setup, ident: ReaderIdent = .right, consent: any ConsentPrompt = ProximityHolderTests.ApproveAll(),
        configuration: HolderConfiguration? = nil, failAfterWrites: Int? = nil, maximumChunkSize: Int? = nil,
        finish: @escaping @Sendable (InMemoryGattClient, inout ReaderSession) async throws -> Void = { _, _ in }
    ) async throws -> (ProximitySessionResult, VerifiedResponse?, InMemoryGattClient) {
        let box = EngagementBox()
        let served: InMemoryGattClient.Ident =
            switch ident {
            case .right: .of(box)
            case .wrong: .fixed(Array(repeating: 0x42, count: 16))
            case .none: .fixed(nil)
            }
        let link = InMemoryGattClient(ident: served)
        if let n = failAfterWrites { await link.setFailAfterWrites(n) }
        var holder = ProximityHolder(
            server: nil, centralClient: link, credentials: [setup.credential],
            configuration: configuration ?? HolderConfiguration(readerTrustAnchors: [setup.pki.readerCA]),
            consent: consent)
        holder.tickInterval = .milliseconds(50)
        holder.maximumChunkSize = maximumChunkSize
        async let outcome = holder.runSession(showEngagement: { box.set($0.uri) })
        await link.waitUntilConnected()
        let uri = try #require(box.get())
        let engagement = try DeviceEngagement(uri: uri)
        #expect(engagement.bleOptions?.centralClientMode == true)
        #expect(engagement.bleOptions?.peripheralServerMode == false)
        #expect(engagement.bleOptions?.centralClientUUID == (await link.serviceUUID)?.bytes)
        guard await link.waitForStart() else {
            return (try await outcome, nil, link)
        }
        var reader = try ReaderSession(
            engagement: engagement, trustAnchors: [setup.pki.iaca],
            identity: ReaderIdentity(key: setup.pki.readerKey, chain: [setup.pki.reader]))
        try await link.readerNotifies(
            message: reader.establishment(requesting: [ProximityHolderTests.request]), mtu: 185)
        var verified: VerifiedResponse?
        if let message = try await link.readerReceivesMessage(),
            case .response(let r, _, _) = try reader.receive(message)
        {
            verified = r
        }
        try await finish(link, &reader)
        return (try await outcome, verified, link)
    }

    @Test func aReaderWithTheRightIdentGetsAVerifiedResponseAndEndsWithStatus20() async throws {
        let (result, verified, link) = try await Self.present(try Setup()) { link, reader in
            try await link.readerNotifies(message: reader.termination(), mtu: 185)
        }
        #expect(verified?.isValid == true)
        #expect(result.mode == .centralClient)
        #expect(result.isSuccess)
        #expect(result.holderEnd == .readerEnded)
        #expect(result.records.map(\.outcome) == [.sent])
        // Ident read once, nothing written before the subscription, then State 0x01 first.
        #expect(await link.identReads == 1)
        #expect(await link.writesBeforeSubscription == 0)
        #expect(await link.stateWrites().first == [0x01])
        #expect(await link.disconnected)
    }

    @Test func aReaderWithAnotherIdentIsRefusedBeforeAnythingIsSent() async throws {
        let (result, verified, link) = try await Self.present(try Setup(), ident: .wrong)
        #expect(verified == nil)
        #expect(result.transportEnd == .protocolError(.identMismatch))
        #expect(!result.isSuccess)
        #expect(result.records.isEmpty)
        #expect(await link.subscribed == false)
        #expect(await link.writeCount == 0)
        #expect(await link.disconnected)
    }

    @Test func aReaderWithoutIdentIsRefused() async throws {
        let (result, _, link) = try await Self.present(try Setup(), ident: .none)
        #expect(result.transportEnd == .protocolError(.identMissing))
        #expect(await link.writeCount == 0)
    }

    @Test func aLargeResponseGoesOutAsOrderedChunksThatFitTheMTU() async throws {
        let (result, verified, link) = try await Self.present(try Setup(portraitSize: 100_000)) { link, _ in
            await link.readerNotifies(.notified(.state, [0x02]))
        }
        let portrait = verified?.documents.first?.elements.first { $0.id.identifier == "portrait" }
        #expect(portrait?.value.bytesValue?.count == 100_004)
        #expect(verified?.isValid == true)
        #expect(result.transportEnd == .peerEnded)
        #expect(result.isSuccess)
        // One message in chunks of at most min(512, 185 - 3) bytes: all "more" (0x01) but
        // the last (0x00), all full but the last.
        let chunks = await link.chunkLog
        #expect(chunks.count > 100_000 / 181)
        #expect(chunks.dropLast().allSatisfy { $0.count == 182 && $0.first == 0x01 })
        #expect(chunks.last?.first == 0x00)
        #expect(chunks.last.map { $0.count <= 182 } == true)
    }

    @Test func aChunkSizeCapKeepsEveryChunkWithinIt() async throws {
        let (result, verified, link) = try await Self.present(try Setup(portraitSize: 20_000), maximumChunkSize: 100) {
            link, _ in
            await link.readerNotifies(.notified(.state, [0x02]))
        }
        #expect(verified?.isValid == true)
        #expect(result.isSuccess)
        let chunks = await link.chunkLog
        #expect(chunks.count > 20_000 / 99)
        #expect(chunks.dropLast().allSatisfy { $0.count == 100 })
    }

    @Test func aDisconnectAfterTheResponseIsASuccess() async throws {
        let (result, verified, _) = try await Self.present(try Setup()) { link, _ in
            await link.readerNotifies(.disconnected)
        }
        #expect(verified != nil)
        #expect(result.transportEnd == .disconnectedAfterResponse)
        #expect(result.isSuccess)
    }

    @Test func aDisconnectMidTransferEndsTheSessionAsAFailure() async throws {
        let (result, verified, _) = try await Self.present(try Setup(portraitSize: 50_000), failAfterWrites: 20)
        #expect(verified == nil)
        #expect(!result.isSuccess)
        #expect(result.transportEnd == .disconnected)
    }

    @Test func theHolderEndsWithState0x02AfterDecliningOnTimeout() async throws {
        var config = HolderConfiguration()
        config.consentTimeout = .milliseconds(200)
        let (result, verified, link) = try await Self.present(
            try Setup(), consent: ProximityHolderTests.NeverAnswers(), configuration: config)
        #expect(verified?.documents.isEmpty == true)
        #expect(result.holderEnd == .consentTimeout)
        #expect(result.transportEnd == .localEnded)
        #expect(await link.stateWrites() == [[0x01], [0x02]])
    }

    @Test func offeringBothModesAReaderOnOurServiceWinsAndTheScanStops() async throws {
        let setup = try Setup()
        let server = InMemoryGattServer()
        let client = InMemoryGattClient(ident: .fixed(nil))
        await client.setNeverFindsReader()
        var holder = ProximityHolder(
            server: server, centralClient: client, credentials: [setup.credential],
            configuration: HolderConfiguration(readerTrustAnchors: [setup.pki.readerCA]),
            consent: ProximityHolderTests.ApproveAll())
        holder.tickInterval = .milliseconds(50)
        let box = EngagementBox()
        async let outcome = holder.runSession(showEngagement: { box.set($0.uri) })
        await server.waitUntilStarted()
        let engagement = try DeviceEngagement(uri: try #require(box.get()))
        let options = try #require(engagement.bleOptions)
        #expect(options.peripheralServerMode && options.centralClientMode)
        #expect(options.peripheralServerUUID != nil && options.centralClientUUID != nil)
        #expect(options.peripheralServerUUID != options.centralClientUUID)
        var reader = try ReaderSession(
            engagement: engagement, trustAnchors: [setup.pki.iaca],
            identity: ReaderIdentity(key: setup.pki.readerKey, chain: [setup.pki.reader]))
        await server.readerSends(.mtu(517))
        await server.readerSends(.subscribed(.server2Client))
        await server.readerSends(.written(.state, [0x01]))
        try await server.readerWrites(
            message: reader.establishment(requesting: [ProximityHolderTests.request]), mtu: 517)
        let message = try #require(try await server.readerReceivesMessage())
        guard case .response(let verified, _, _) = try reader.receive(message) else {
            Issue.record("no response")
            return
        }
        try await server.readerWrites(message: reader.termination(), mtu: 517)
        let result = try await outcome
        #expect(verified.isValid)
        #expect(result.mode == .peripheralServer)
        #expect(result.isSuccess)
        #expect(await client.scanCancelled)
    }

    @Test func offeringBothModesTheReadersServiceWinsAndOursIsWithdrawn() async throws {
        let setup = try Setup()
        let server = InMemoryGattServer()
        let (result, verified, _) = try await Self.presentBoth(setup, server: server)
        #expect(verified?.isValid == true)
        #expect(result.mode == .centralClient)
        #expect(result.isSuccess)
        #expect(await server.stopped)
    }

    /// Both modes offered; the reader comes as the GATT server (central-client mode).
    static func presentBoth(_ setup: Setup, server: InMemoryGattServer) async throws -> (
        ProximitySessionResult, VerifiedResponse?, InMemoryGattClient
    ) {
        let box = EngagementBox()
        let link = InMemoryGattClient(ident: .of(box))
        var holder = ProximityHolder(
            server: server, centralClient: link, credentials: [setup.credential],
            configuration: HolderConfiguration(readerTrustAnchors: [setup.pki.readerCA]),
            consent: ProximityHolderTests.ApproveAll())
        holder.tickInterval = .milliseconds(50)
        async let outcome = holder.runSession(showEngagement: { box.set($0.uri) })
        await link.waitUntilConnected()
        let engagement = try DeviceEngagement(uri: try #require(box.get()))
        guard await link.waitForStart() else { return (try await outcome, nil, link) }
        var reader = try ReaderSession(
            engagement: engagement, trustAnchors: [setup.pki.iaca],
            identity: ReaderIdentity(key: setup.pki.readerKey, chain: [setup.pki.reader]))
        try await link.readerNotifies(
            message: reader.establishment(requesting: [ProximityHolderTests.request]), mtu: 185)
        var verified: VerifiedResponse?
        if let message = try await link.readerReceivesMessage(),
            case .response(let r, _, _) = try reader.receive(message)
        {
            verified = r
        }
        try await link.readerNotifies(message: reader.termination(), mtu: 185)
        return (try await outcome, verified, link)
    }
}

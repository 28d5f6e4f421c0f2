import BLETestSupport
import BLETransport
import Foundation
import ISO18013
import Presentation
import Proximity
import Testing

/// The proximity loop in peripheral-server mode with an L2CAP channel offered: a reader that
/// connects to it exchanges length-framed messages there; without a listener the same
/// session runs over GATT.
struct L2CAPHolderTests {
    typealias Setup = ProximityHolderTests.Setup

    struct NoBluetooth: Error, CustomStringConvertible {
        var description: String { "no AF_BLUETOOTH" }
    }

    /// Runs the holder with `listener`; the reader connects over L2CAP, sends its request in
    /// pieces of 7 bytes (frames need not align with SDUs), reads the response and ends with
    /// `finish`.
    static func present(
        _ setup: Setup, listener: InMemoryL2CAPListener,
        finish: @escaping @Sendable (InMemoryL2CAPChannel, inout ReaderSession) async throws -> Void
    ) async throws -> (ProximitySessionResult, VerifiedResponse?, InMemoryL2CAPChannel, InMemoryGattServer) {
        let server = InMemoryGattServer()
        var holder = ProximityHolder(
            server: server, credentials: [setup.credential],
            configuration: HolderConfiguration(readerTrustAnchors: [setup.pki.readerCA]),
            consent: ProximityHolderTests.ApproveAll())
        holder.tickInterval = .milliseconds(50)
        holder.l2capListener = { listener }
        let box = EngagementBox()
        async let outcome = holder.runSession(showEngagement: { box.set($0.uri) })
        await server.waitUntilStarted()
        let engagement = try DeviceEngagement(uri: try #require(box.get()))
        #expect(engagement.bleOptions?.l2capPSM == UInt64(listener.psm))
        #expect(await server.l2capPSM == listener.psm)
        var reader = try ReaderSession(
            engagement: engagement, trustAnchors: [setup.pki.iaca],
            identity: ReaderIdentity(key: setup.pki.readerKey, chain: [setup.pki.reader]))
        let channel = listener.connect()
        let frame = try L2CAPFraming.frame(try reader.establishment(requesting: [ProximityHolderTests.request]))
        for start in stride(from: 0, to: frame.count, by: 7) {
            try await channel.send(Array(frame[start..<min(start + 7, frame.count)]))
        }
        var decoder = L2CAPMessageDecoder(maximumMessageSize: MessageSizeLimit.request)
        var verified: VerifiedResponse?
        receiving: while true {
            guard let piece = try? await channel.receive() else { break }
            for message in try decoder.append(piece) {
                if case .response(let r, _, _) = try reader.receive(message) { verified = r }
                break receiving
            }
        }
        try await finish(channel, &reader)
        return (try await outcome, verified, channel, server)
    }

    @Test func aReaderOnTheL2CAPChannelGetsALargeResponseInOneFrame() async throws {
        let listener = InMemoryL2CAPListener(psm: 0x0081)
        let (result, verified, channel, _) = try await Self.present(
            try Setup(portraitSize: 100_000), listener: listener
        ) { channel, reader in
            try await channel.send(try L2CAPFraming.frame(reader.termination()))
        }
        let portrait = verified?.documents.first?.elements.first { $0.id.identifier == "portrait" }
        #expect(portrait?.value.bytesValue?.count == 100_004)
        #expect(verified?.isValid == true)
        #expect(result.overL2CAP)
        #expect(result.mode == .peripheralServer)
        #expect(result.holderEnd == .readerEnded)
        #expect(result.isSuccess)
        // The holder's response went out as one frame whose 4-byte big-endian length says
        // more than 64 KiB (where SpruceID's 2-byte form would have wrapped).
        let sent = channel.peer?.sentPieces ?? []
        let response = try #require(sent.first)
        let length = response.prefix(4).reduce(0) { $0 << 8 | Int($1) }
        #expect(length == response.count - 4)
        #expect(length > 65_535)
        #expect(listener.isClosed)
    }

    @Test func aZeroLengthFrameEndsTheSession() async throws {
        let (result, verified, _, _) = try await Self.present(
            try Setup(), listener: InMemoryL2CAPListener(psm: 0x0082)
        ) { channel, _ in
            try await channel.send([0, 0, 0, 0])
        }
        #expect(verified?.isValid == true)
        #expect(result.transportEnd == .peerEnded)
        #expect(result.isSuccess)
    }

    @Test func aReaderThatClosesAfterTheResponseIsASuccess() async throws {
        let (result, verified, _, _) = try await Self.present(
            try Setup(), listener: InMemoryL2CAPListener(psm: 0x0083)
        ) { channel, _ in
            channel.close()
        }
        #expect(verified != nil)
        #expect(result.transportEnd == .disconnectedAfterResponse)
        #expect(result.isSuccess)
    }

    @Test func withoutBluetoothSocketsTheSessionOffersGATTOnly() async throws {
        let setup = try Setup()
        let server = InMemoryGattServer()
        var holder = ProximityHolder(
            server: server, credentials: [setup.credential],
            configuration: HolderConfiguration(readerTrustAnchors: [setup.pki.readerCA]),
            consent: ProximityHolderTests.ApproveAll())
        holder.tickInterval = .milliseconds(50)
        holder.l2capListener = { throw NoBluetooth() }
        let box = EngagementBox()
        async let outcome = holder.runSession(showEngagement: { box.set($0.uri) })
        await server.waitUntilStarted()
        let engagement = try DeviceEngagement(uri: try #require(box.get()))
        #expect(engagement.bleOptions?.l2capPSM == nil)
        #expect(await server.l2capPSM == nil)
        var reader = try ReaderSession(
            engagement: engagement, trustAnchors: [setup.pki.iaca],
            identity: ReaderIdentity(key: setup.pki.readerKey, chain: [setup.pki.reader]))
        await server.readerSends(.subscribed(.server2Client))
        await server.readerSends(.written(.state, [0x01]))
        try await server.readerWrites(
            message: reader.establishment(requesting: [ProximityHolderTests.request]), mtu: 517)
        let message = try #require(try await server.readerReceivesMessage())
        guard case .response(let verified, _, _) = try reader.receive(message) else {
            Issue.record("no response over GATT")
            return
        }
        await server.readerSends(.written(.state, [0x02]))
        let result = try await outcome
        #expect(verified.isValid)
        #expect(!result.overL2CAP)
        #expect(result.l2capUnavailable == "no AF_BLUETOOTH")
        #expect(result.isSuccess)
    }

    @Test func inCentralClientModeTheHolderUsesTheReadersL2CAPChannel() async throws {
        let setup = try Setup()
        let box = EngagementBox()
        let link = InMemoryGattClient(ident: .of(box))
        let (holderEnd, readerEnd) = InMemoryL2CAPChannel.pair()
        await link.setL2CAPChannel(holderEnd)
        var holder = ProximityHolder(
            server: nil, centralClient: link, credentials: [setup.credential],
            configuration: HolderConfiguration(readerTrustAnchors: [setup.pki.readerCA]),
            consent: ProximityHolderTests.ApproveAll())
        holder.tickInterval = .milliseconds(50)
        holder.centralL2CAP = true
        async let outcome = holder.runSession(showEngagement: { box.set($0.uri) })
        await link.waitUntilConnected()
        let engagement = try DeviceEngagement(uri: try #require(box.get()))
        var reader = try ReaderSession(
            engagement: engagement, trustAnchors: [setup.pki.iaca],
            identity: ReaderIdentity(key: setup.pki.readerKey, chain: [setup.pki.reader]))
        try await readerEnd.send(
            try L2CAPFraming.frame(try reader.establishment(requesting: [ProximityHolderTests.request])))
        var decoder = L2CAPMessageDecoder(maximumMessageSize: MessageSizeLimit.request)
        var verified: VerifiedResponse?
        receiving: while true {
            guard let piece = try? await readerEnd.receive() else { break }
            for message in try decoder.append(piece) {
                if case .response(let r, _, _) = try reader.receive(message) { verified = r }
                break receiving
            }
        }
        try await readerEnd.send(try L2CAPFraming.frame(reader.termination()))
        let result = try await outcome
        #expect(verified?.isValid == true)
        #expect(result.mode == .centralClient)
        #expect(result.overL2CAP)
        #expect(result.isSuccess)
        // The Ident was checked first; GATT carried nothing after it.
        #expect(await link.identReads == 1)
        #expect(await link.l2capOpened)
        #expect(await link.subscribed == false)
        #expect(await link.writeCount == 0)
    }
}

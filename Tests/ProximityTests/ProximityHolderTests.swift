import BLETestSupport
import BLETransport
import CBOR
import Consent
import Foundation
import ISO18013
import MdocCrypto
import MdocIssuer
import Presentation
import Proximity
import Testing

/// The proximity loop over an in-memory GATT server: the reader side fragments and
/// reassembles exactly as a BLE central would.
struct ProximityHolderTests {
    static let mDL = "org.iso.18013.5.1.mDL"
    static let ns = "org.iso.18013.5.1"

    typealias Setup = TestMDL

    struct ApproveAll: ConsentPrompt {
        func decide(_ request: ConsentRequest) async -> ConsentDecision { .approveAll(request) }
    }

    struct NeverAnswers: ConsentPrompt {
        func decide(_ request: ConsentRequest) async -> ConsentDecision {
            try? await Task.sleep(for: .seconds(30))
            return .decline
        }
    }

    static let request = ItemsRequest(
        docType: mDL, nameSpaces: [.init(ns, [.init("family_name"), .init("age_over_18"), .init("portrait")])])

    /// Runs the holder and a reader that asks once, then ends the way `finish` says.
    static func present(
        _ setup: Setup, consent: any ConsentPrompt = ApproveAll(), configuration: HolderConfiguration? = nil,
        mtu: Int = 517, failAfterNotifications: Int? = nil,
        finish: @escaping @Sendable (InMemoryGattServer, inout ReaderSession) async throws -> Void
    ) async throws -> (ProximitySessionResult, VerifiedResponse?) {
        let server = InMemoryGattServer()
        if let n = failAfterNotifications { await server.setFail(n) }
        var holder = ProximityHolder(
            server: server, credentials: [setup.credential],
            configuration: configuration ?? HolderConfiguration(readerTrustAnchors: [setup.pki.readerCA]),
            consent: consent)
        holder.tickInterval = .milliseconds(50)
        let box = EngagementBox()
        async let outcome = holder.runSession(showEngagement: { box.set($0.uri) })
        await server.waitUntilStarted()
        let uri = try #require(box.get())
        var reader = try ReaderSession(
            engagement: DeviceEngagement(uri: uri), trustAnchors: [setup.pki.iaca],
            identity: ReaderIdentity(key: setup.pki.readerKey, chain: [setup.pki.reader]))
        // The engagement's service UUID is the one registered.
        #expect(try DeviceEngagement(uri: uri).bleOptions?.peripheralServerUUID == (await server.serviceUUID)?.bytes)
        await server.readerSends(.mtu(mtu))
        await server.readerSends(.subscribed(.server2Client))
        await server.readerSends(.written(.state, [0x01]))
        try await server.readerWrites(message: reader.establishment(requesting: [request]), mtu: mtu)
        var verified: VerifiedResponse?
        if let message = try await server.readerReceivesMessage(),
            case .response(let r, _, _) = try reader.receive(message)
        {
            verified = r
        }
        try await finish(server, &reader)
        return (try await outcome, verified)
    }

    @Test func aReaderGetsAVerifiedResponseAndEndsWithStatus20() async throws {
        let setup = try Setup()
        let (result, verified) = try await Self.present(setup) { server, reader in
            try await server.readerWrites(message: reader.termination(), mtu: 517)
        }
        #expect(verified?.isValid == true)
        #expect(result.isSuccess)
        #expect(result.holderEnd == .readerEnded)
        #expect(result.records.map(\.outcome) == [.sent])
    }

    @Test func aLargeResponseArrivesIntactInChunksThatFitTheMTU() async throws {
        let setup = try Setup(portraitSize: 100_000)
        let (result, verified) = try await Self.present(setup, mtu: 185) { server, _ in
            await server.readerSends(.written(.state, [0x02]))
        }
        let portrait = verified?.documents.first?.elements.first { $0.id.identifier == "portrait" }
        #expect(portrait?.value.bytesValue?.count == 100_004)
        #expect(verified?.isValid == true)
        #expect(result.transportEnd == .peerEnded)
        #expect(result.isSuccess)
    }

    @Test func theSummarySaysTheReaderEndedWhenItsStateEndCameBeforeTheDisconnect() async throws {
        let (result, _) = try await Self.present(try Setup()) { server, _ in
            await server.readerSends(.written(.state, [0x02]))
            await server.readerSends(.disconnected)
        }
        #expect(result.transportEnd == .peerEnded)
        #expect(result.endDescription == "the reader ended the session (State end)")
    }

    @Test func aDisconnectAfterTheResponseIsASuccess() async throws {
        let (result, verified) = try await Self.present(try Setup()) { server, _ in
            await server.readerSends(.disconnected)
        }
        #expect(verified != nil)
        #expect(result.transportEnd == .disconnectedAfterResponse)
        #expect(result.isSuccess)
    }

    @Test func aDisconnectMidTransferEndsTheSessionAsAFailure() async throws {
        let (result, verified) = try await Self.present(try Setup(portraitSize: 50_000), failAfterNotifications: 20) {
            _, _ in
        }
        #expect(verified == nil)
        #expect(!result.isSuccess)
        #expect(result.transportEnd == .disconnected)
    }

    @Test func anUnansweredConsentDeclinesAndEndsTheSession() async throws {
        var config = HolderConfiguration()
        config.consentTimeout = .milliseconds(200)
        let (result, verified) = try await Self.present(try Setup(), consent: NeverAnswers(), configuration: config) {
            _, _ in
        }
        #expect(verified?.documents.isEmpty == true)
        #expect(verified?.documentErrors.map(\.docType) == [Self.mDL])
        #expect(result.holderEnd == .consentTimeout)
    }
}

extension InMemoryGattServer {
    func setFail(_ n: Int) { failAfterNotifications = n }
}

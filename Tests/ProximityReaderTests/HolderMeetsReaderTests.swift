import BLETestSupport
import BLETransport
import Consent
import Foundation
import ISO18013
import MdocCrypto
import MdocIssuer
import Presentation
import Proximity
import ProximityReader
import Synchronization
import Testing

/// The holder's loop (``ProximityHolder``) and the reader's (``ProximityReader``) over one
/// in-memory GATT wire: each BLE mode puts the holder and the reader in the other GATT role,
/// so the shared server and client roles, the session state machine of both roles and both
/// message channels are exercised from both sides.
struct HolderMeetsReaderTests {
    static let mDL = "org.iso.18013.5.1.mDL"
    static let ns = "org.iso.18013.5.1"
    static let request = ItemsRequest(
        docType: mDL, nameSpaces: [.init(ns, [.init("family_name"), .init("age_over_18"), .init("portrait")])])

    struct ApproveAll: ConsentPrompt {
        func decide(_ request: ConsentRequest) async -> ConsentDecision { .approveAll(request) }
    }

    enum Mode: String, CaseIterable, Sendable {
        case peripheral, central
    }

    struct Outcome {
        var holder: ProximitySessionResult
        var verified: VerifiedResponse
        var overL2CAP: Bool
    }

    /// One session: the holder offers `mode`, the reader takes it, asks once, verifies and
    /// ends with status 20.
    static func session(
        _ mode: Mode, l2cap: Bool = false, portraitSize: Int = 2000, mtu: Int? = 185
    ) async throws -> Outcome {
        let setup = try TestMDL(portraitSize: portraitSize)
        let wire = InMemoryGattWire(mtu: mtu)
        let listener = InMemoryL2CAPListener(psm: 0x0081)
        if l2cap { await wire.route(listener) }
        var holder = ProximityHolder(
            server: mode == .peripheral ? wire.server : nil, centralClient: mode == .central ? wire.client : nil,
            credentials: [setup.credential],
            configuration: HolderConfiguration(readerTrustAnchors: [setup.pki.readerCA]),
            consent: ApproveAll())
        holder.tickInterval = .milliseconds(50)
        if l2cap, mode == .peripheral { holder.l2capListener = { listener } }
        holder.centralL2CAP = l2cap
        let engagementURI = Mutex<String?>(nil)
        async let holderResult = holder.runSession(showEngagement: { e in engagementURI.withLock { $0 = e.uri } })
        var uri: String?
        for _ in 0..<500 where uri == nil {
            uri = engagementURI.withLock { $0 }
            if uri == nil { try await Task.sleep(for: .milliseconds(10)) }
        }
        let engagement = try DeviceEngagement(uri: try #require(uri))

        var reader = ProximityReader(client: wire.client, server: wire.server, timeout: .seconds(10))
        reader.l2cap = l2cap
        if l2cap, mode == .central { reader.l2capListener = { listener } }
        let bleMode = try ReaderBLEMode(choosing: .auto, from: try #require(engagement.bleOptions))
        let connection = try await reader.connect(bleMode, engagement: engagement)
        var session = try ReaderSession(
            engagement: engagement, trustAnchors: [setup.pki.iaca],
            identity: ReaderIdentity(key: setup.pki.readerKey, chain: [setup.pki.reader]))
        let establishment = try session.establishment(requesting: [request])
        guard
            case .response(let verified, let terminated) = try await connection.exchange(
                establishment, with: &session, timeout: .seconds(10))
        else {
            Issue.record("no response")
            throw CancellationError()
        }
        #expect(terminated)
        return Outcome(holder: try await holderResult, verified: verified, overL2CAP: connection.overL2CAP)
    }

    @Test(arguments: Mode.allCases)
    func theReaderGetsAVerifiedResponseOverGATT(_ mode: Mode) async throws {
        let outcome = try await Self.session(mode)
        #expect(outcome.verified.documents.count == 1)
        #expect(outcome.holder.isSuccess)
        #expect(outcome.holder.mode?.rawValue == mode.rawValue)
        #expect(!outcome.holder.overL2CAP && !outcome.overL2CAP)
        #expect(outcome.holder.holderEnd == .readerEnded)
        #expect(outcome.holder.endDescription == "the reader ended the session")
    }

    @Test(arguments: Mode.allCases)
    func aLargeResponseCrossesInChunksOfTheMTU(_ mode: Mode) async throws {
        let outcome = try await Self.session(mode, portraitSize: 100_000, mtu: 247)
        #expect(outcome.verified.documents.count == 1)
        #expect(outcome.holder.isSuccess)
    }

    @Test(arguments: Mode.allCases)
    func bothSidesUseL2CAPWhenAskedAndOffered(_ mode: Mode) async throws {
        let outcome = try await Self.session(mode, l2cap: true, portraitSize: 50_000)
        #expect(outcome.verified.documents.count == 1)
        #expect(outcome.holder.isSuccess)
        #expect(outcome.holder.overL2CAP && outcome.overL2CAP)
    }
}

import BLETestSupport
import BLETransport
import Consent
import Foundation
import ISO18013
import MdocCrypto
import Presentation
import Proximity
import Testing

/// `present`/`serve --engagement-version` through ``ProximityOptions``: the holder engages
/// with "1.1" (OriginInfos, Capabilities 3 and 4) by default and "1.0" when asked; a reader
/// with a key answers each as the edition says, and the holder trusts it either way.
struct EngagementVersionTests {
    typealias Setup = ProximityHolderTests.Setup

    /// One session of a holder built from `options` and a trusted reader; returns the
    /// engagement as the reader read it, what the reader sent and how the holder saw it.
    static func session(_ options: ProximityOptions) async throws -> (DeviceEngagement, DeviceRequest, Requester?) {
        let setup = try Setup()
        let server = InMemoryGattServer()
        var holder = options.holder(
            server: server, client: InMemoryGattClient(ident: .fixed(nil)), l2capListener: nil,
            credentials: [setup.credential],
            configuration: HolderConfiguration(readerTrustAnchors: [setup.pki.readerCA]),
            consent: ProximityHolderTests.ApproveAll())
        holder.tickInterval = .milliseconds(50)
        let box = EngagementBox()
        async let outcome = holder.runSession(showEngagement: { box.set($0.uri) })
        await server.waitUntilStarted()
        let engagement = try DeviceEngagement(uri: try #require(box.get()))
        var reader = try ReaderSession(
            engagement: engagement, trustAnchors: [setup.pki.iaca],
            identity: ReaderIdentity(key: setup.pki.readerKey, chain: [setup.pki.reader]))
        let request = try reader.deviceRequest([ProximityHolderTests.request])
        await server.readerSends(.mtu(517))
        await server.readerSends(.subscribed(.server2Client))
        await server.readerSends(.written(.state, [0x01]))
        try await server.readerWrites(message: reader.establishment(for: request), mtu: 517)
        let message = try #require(try await server.readerReceivesMessage())
        guard case .response(let verified, _, _) = try reader.receive(message) else {
            Issue.record("no response")
            return (engagement, request, nil)
        }
        #expect(verified.isValid && !verified.documents.isEmpty)
        try await server.readerWrites(message: reader.termination(), mtu: 517)
        let result = try await outcome
        return (engagement, request, result.records.first?.requester)
    }

    @Test func byDefaultTheHolderEngagesWith11AndTheReaderSignsReaderAuthAll() async throws {
        let (engagement, request, requester) = try await Self.session(ProximityOptions())
        #expect(engagement.version == "1.1")
        #expect(engagement.originInfos == [])
        #expect(engagement.capabilities == .holderDefault)
        #expect(request.version == "1.1" && request.readerAuthAll.count == 1)
        #expect(request.docRequests.allSatisfy { $0.readerAuth == nil })
        #expect(requester?.authentication.isTrusted == true)
    }

    @Test func engagementVersion10GivesAFirstEditionEngagementAndRequest() async throws {
        let (engagement, request, requester) = try await Self.session(
            ProximityOptions(engagementVersion: .firstEdition))
        #expect(engagement.version == "1.0")
        #expect(engagement.otherEntries.isEmpty && engagement.capabilities == nil)
        #expect(request.version == "1.0" && request.readerAuthAll.isEmpty)
        #expect(request.docRequests.allSatisfy { $0.readerAuth != nil })
        #expect(requester?.authentication.isTrusted == true)
    }
}

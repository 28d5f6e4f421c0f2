import CBOR
import Consent
import Foundation
import ISO18013
import MdocCrypto
import Presentation
import Testing

/// Reader authentication is checked on every DocRequest and the configured policy decides
/// what an unauthenticated or untrusted reader gets.
struct ReaderAuthenticationPolicyTests {
    typealias I = IssuedCredentials

    func exchange(_ issued: I, policy: UntrustedReaderPolicy, anchors: [Certificate], identity: ReaderIdentity?)
        throws -> InMemoryExchange
    {
        var config = HolderConfiguration(readerTrustAnchors: anchors, untrustedReaders: policy)
        config.deviceAuth = .signature
        return try InMemoryExchange(
            credentials: [issued.issue()], configuration: config, iacas: [issued.pki.iaca], identity: identity,
            time: issued.now)
    }

    static let request = [
        ItemsRequest(docType: I.mDL, nameSpaces: [.init(I.ns, [.init("family_name"), .init("age_over_18")])])
    ]

    @Test func aTrustedReaderIsShownWithItsAnchorAndNoWarning() throws {
        let issued = try I()
        var x = try exchange(issued, policy: .refuse, anchors: [issued.pki.readerCA], identity: issued.readerIdentity)
        let response = try #require(try x.request(Self.request)?.verified)
        #expect(response.isValid, "\(response.documents.flatMap(\.failures))")
        let asked = try #require(x.consentRequests.first)
        #expect(asked.warning == nil)
        #expect(asked.requester.authentication == .trusted(anchor: issued.pki.readerCA.subject))
        #expect(asked.requester.displayName == Requester.commonNameForTest(issued.pki.reader.subject))
        #expect(x.records.first?.requester.authentication.isTrusted == true)
    }

    @Test func anUntrustedReaderIsRefusedByPolicyWithoutAsking() throws {
        let issued = try I()
        // The reader signs, but its root is not configured.
        var x = try exchange(issued, policy: .refuse, anchors: [], identity: issued.readerIdentity)
        let response = try #require(try x.request(Self.request)?.verified)
        #expect(x.consentRequests.isEmpty)
        #expect(response.documents.isEmpty)
        #expect(response.documentErrors.map(\.docType) == [I.mDL])
        guard case .notReturned(let reason) = x.records.first?.outcome else {
            Issue.record("expected a refusal record")
            return
        }
        #expect(reason.contains("refused by policy"))
    }

    @Test func anUnauthenticatedReaderIsAskedAboutWithAWarning() throws {
        let issued = try I()
        var x = try exchange(issued, policy: .ask, anchors: [issued.pki.readerCA], identity: nil)
        _ = try x.request(Self.request)
        let asked = try #require(x.consentRequests.first)
        #expect(asked.requester.authentication == .unauthenticated)
        #expect(asked.warning?.contains("not authenticated") == true)
    }

    @Test func allowAsksWithoutAWarning() throws {
        let issued = try I()
        var x = try exchange(issued, policy: .allow, anchors: [], identity: issued.readerIdentity)
        let response = try #require(try x.request(Self.request)?.verified)
        let asked = try #require(x.consentRequests.first)
        #expect(asked.warning == nil)
        guard case .untrusted = asked.requester.authentication else {
            Issue.record("expected untrusted, got \(asked.requester.authentication)")
            return
        }
        #expect(response.documents.count == 1)
    }

    @Test func aSignatureByAnotherKeyIsInvalidAndRefused() throws {
        let issued = try I()
        let impostor = ReaderIdentity(key: try PrivateKey.generate(.p256), chain: [issued.pki.reader])
        var x = try exchange(issued, policy: .refuse, anchors: [issued.pki.readerCA], identity: impostor)
        let response = try #require(try x.request(Self.request)?.verified)
        #expect(response.documents.isEmpty)
        guard case .notReturned(let reason) = x.records.first?.outcome else {
            Issue.record("expected a refusal")
            return
        }
        #expect(reason.contains("authentication failed"))
    }

    @Test func twoDocumentsAreAnsweredTogether() throws {
        let issued = try I()
        let mdl = try issued.issue()
        let card = try issued.issue(
            docType: I.loyalty, nameSpace: I.loyalty, elements: [("member_id", "M-42"), ("tier", "gold")])
        var x = try InMemoryExchange(
            credentials: [mdl, card], configuration: HolderConfiguration(readerTrustAnchors: [issued.pki.readerCA]),
            iacas: [issued.pki.iaca], identity: issued.readerIdentity, time: issued.now)
        let response = try #require(
            try x.request([
                ItemsRequest(docType: I.mDL, nameSpaces: [.init(I.ns, [.init("given_name")])]),
                ItemsRequest(docType: I.loyalty, nameSpaces: [.init(I.loyalty, [.init("member_id"), .init("tier")])]),
            ])?.verified)
        #expect(response.isValid, "\(response.documents.flatMap(\.failures))")
        #expect(response.documents.map(\.docType) == [I.mDL, I.loyalty])
        #expect(x.consentRequests.first?.documents.count == 2)
        #expect(response.documents[1].elements.map(\.id.identifier) == ["member_id", "tier"])
        #expect(x.records.map(\.outcome) == [.sent, .sent])
    }

    @Test func aKeyAgreementDeviceKeyAnswersWithDeviceMac() throws {
        let issued = try I()
        let credential = try issued.issue(deviceKey: PrivateKey.generate(.x25519))
        var x = try InMemoryExchange(
            credentials: [credential], iacas: [issued.pki.iaca], time: issued.now, curve: .x25519)
        let response = try #require(try x.request(Self.request)?.verified)
        #expect(response.documents.first?.deviceAuthKind == "deviceMac")
        #expect(response.isValid, "\(response.documents.flatMap(\.failures))")
    }
}

extension Requester {
    static func commonNameForTest(_ subject: String) -> String? {
        subject.split(separator: ",").first { $0.hasPrefix("CN=") }.map { String($0.dropFirst(3)) }
    }
}

import CBOR
import COSE
import Consent
import Foundation
import ISO18013
import MdocCrypto
import MdocIssuer
import Presentation
import Testing

/// DeviceRequest "1.1" `readerAuthAll` as the holder sees it: one detached COSE_Sign1 over
/// ReaderAuthenticationAllBytes authenticates the reader for every DocRequest; what is wrong
/// with it (another session, a payload attached, `alg` unprotected, an unknown root, the
/// three-member form over a request with deviceRequestInfo) is never taken as authentication.
struct ReaderAuthenticationAllTests {
    typealias I = IssuedCredentials

    static let mDL = ItemsRequest(docType: I.mDL, nameSpaces: [.init(I.ns, [.init("family_name")])])
    static let loyalty = ItemsRequest(
        docType: I.loyalty, nameSpaces: [.init(I.loyalty, [.init("member_id")])])
    static let info = EmbeddedCBOR(["useCases": [["mandatory": true, "documentSets": [[0, 1]]]]])

    /// One holder session (the trusted reader CA configured, untrusted readers asked about,
    /// everything approved) fed `build`'s request; returns how the holder saw the reader for
    /// each DocRequest (its history records).
    static func seen(
        _ build: (_ issued: I, _ transcript: SessionTranscript, _ unsigned: DeviceRequest) throws -> DeviceRequest,
        deviceRequestInfo: EmbeddedCBOR? = info
    ) throws -> [RequesterAuthentication] {
        let issued = try I()
        let config = HolderConfiguration(readerTrustAnchors: [issued.pki.readerCA], untrustedReaders: .ask)
        var x = try InMemoryExchange(
            credentials: [
                issued.issue(), issued.issue(docType: I.loyalty, nameSpace: I.loyalty, elements: [("member_id", "42")]),
            ],
            configuration: config, iacas: [issued.pki.iaca], time: issued.now)
        let unsigned = DeviceRequest(
            docRequests: [DocRequest(itemsRequest: mDL), DocRequest(itemsRequest: loyalty)], version: "1.1",
            deviceRequestInfo: deviceRequestInfo)
        let request = try build(issued, x.reader.transcript, unsigned)
        _ = x.deliver(try x.reader.establishment(for: request), decide: { .approveAll($0) })
        #expect(x.records.map(\.docType) == [I.mDL, I.loyalty])
        return x.records.map(\.requester.authentication)
    }

    static func all(
        _ issued: I, _ transcript: SessionTranscript, _ request: DeviceRequest,
        form: ReaderAuthenticationAll.Form = .standard, key: PrivateKey? = nil, chain: [Certificate]? = nil
    ) throws -> COSESign1 {
        try ReaderAuthenticationAll.sign(
            sessionTranscript: transcript, itemsRequests: request.docRequests.map(\.itemsRequestBytes),
            deviceRequestInfo: request.deviceRequestInfo, key: key ?? issued.pki.readerKey,
            chain: chain ?? [issued.pki.reader], form: form)
    }

    static func with(_ request: DeviceRequest, all: [COSESign1], docs: [DocRequest]? = nil) -> DeviceRequest {
        DeviceRequest(
            docRequests: docs ?? request.docRequests, version: request.version,
            deviceRequestInfo: request.deviceRequestInfo, readerAuthAll: all)
    }

    @Test func aTrustedReaderAuthAllAuthenticatesEveryDocRequest() throws {
        var anchor = ""
        let seen = try Self.seen { issued, t, r in
            anchor = issued.pki.readerCA.subject
            return Self.with(r, all: [try Self.all(issued, t, r)])
        }
        #expect(seen == [.trusted(anchor: anchor), .trusted(anchor: anchor)])
    }

    @Test func anUntrustedRootIsNotTrusted() throws {
        let seen = try Self.seen { issued, t, r in
            let stranger = try TestPKI.generate()
            return Self.with(r, all: [try Self.all(issued, t, r, key: stranger.readerKey, chain: [stranger.reader])])
        }
        #expect(seen.count == 2)
        for s in seen {
            guard case .untrusted(let reason) = s else {
                Issue.record("\(s)")
                continue
            }
            #expect(reason.contains("not trusted"))
        }
    }

    @Test func aReaderAuthAllOverAnotherSessionsTranscriptFails() throws {
        let seen = try Self.seen { issued, _, r in
            let other = SessionTranscript(handover: ["another session"])
            return Self.with(r, all: [try Self.all(issued, other, r)])
        }
        #expect(seen == Array(repeating: .invalid(reason: "readerAuth signature does not verify"), count: 2))
    }

    /// An attached payload (even the right one) and `alg` only in the unprotected header are
    /// refused, each with a reason naming it.
    @Test(
        arguments: [
            (ReaderAuthenticationAll.Form.attachedPayload, "attached"),
            (ReaderAuthenticationAll.Form.algorithmOnlyUnprotected, "protected header"),
        ])
    func aRefusedFormIsInvalidWithItsReason(form: ReaderAuthenticationAll.Form, reason expected: String) throws {
        let seen = try Self.seen { issued, t, r in
            Self.with(r, all: [try Self.all(issued, t, r, form: form)])
        }
        #expect(seen.count == 2)
        for s in seen {
            guard case .invalid(let reason) = s else {
                Issue.record("\(s)")
                continue
            }
            #expect(reason.contains(expected))
        }
    }

    @Test func theThreeMemberFormCountsOnlyWithoutDeviceRequestInfo() throws {
        var anchor = ""
        let without = try Self.seen(
            { issued, t, r in
                anchor = issued.pki.readerCA.subject
                return Self.with(r, all: [try Self.all(issued, t, r, form: .withoutDeviceRequestInfo)])
            }, deviceRequestInfo: nil)
        #expect(without == [.trusted(anchor: anchor), .trusted(anchor: anchor)])
        // With deviceRequestInfo, the use cases shown to the user would not be signed.
        let with = try Self.seen { issued, t, r in
            Self.with(r, all: [try Self.all(issued, t, r, form: .withoutDeviceRequestInfo)])
        }
        #expect(with == Array(repeating: .invalid(reason: "readerAuth signature does not verify"), count: 2))
    }

    @Test func oneTrustedSignatureInTheArrayIsEnough() throws {
        var anchor = ""
        let seen = try Self.seen { issued, t, r in
            anchor = issued.pki.readerCA.subject
            let stranger = try TestPKI.generate()
            let untrusted = try Self.all(issued, t, r, key: stranger.readerKey, chain: [stranger.reader])
            return Self.with(r, all: [untrusted, try Self.all(issued, t, r)])
        }
        #expect(seen == [.trusted(anchor: anchor), .trusted(anchor: anchor)])
    }

    @Test func withBothAFailingPerDocumentReaderAuthCountsAsFailed() throws {
        var anchor = ""
        let seen = try Self.seen { issued, t, r in
            anchor = issued.pki.readerCA.subject
            // The first DocRequest's own readerAuth is over another session; readerAuthAll is right.
            let other = SessionTranscript(handover: ["another session"])
            let bad = try ReaderAuthentication.sign(
                transcript: other, itemsRequestBytes: r.docRequests[0].itemsRequestBytes, key: issued.pki.readerKey,
                algorithm: .es256, certificateChain: [issued.pki.reader])
            let docs = [
                try DocRequest(itemsRequestBytes: r.docRequests[0].itemsRequestBytes, readerAuth: bad),
                r.docRequests[1],
            ]
            return Self.with(r, all: [try Self.all(issued, t, r)], docs: docs)
        }
        #expect(seen == [.invalid(reason: "readerAuth signature does not verify"), .trusted(anchor: anchor)])
    }

    @Test func withBothAFailingReaderAuthAllCountsAsFailed() throws {
        let seen = try Self.seen { issued, t, r in
            // Each DocRequest carries a right readerAuth; readerAuthAll is from an unknown root.
            let docs = try r.docRequests.map { doc in
                try DocRequest(
                    itemsRequestBytes: doc.itemsRequestBytes,
                    readerAuth: ReaderAuthentication.sign(
                        transcript: t, itemsRequestBytes: doc.itemsRequestBytes, key: issued.pki.readerKey,
                        algorithm: .es256, certificateChain: [issued.pki.reader]))
            }
            let stranger = try TestPKI.generate()
            let all = try Self.all(issued, t, r, key: stranger.readerKey, chain: [stranger.reader])
            return Self.with(r, all: [all], docs: docs)
        }
        #expect(seen.count == 2)
        #expect(seen.allSatisfy { if case .untrusted = $0 { true } else { false } }, "\(seen)")
    }

    @Test func withBothRightTheReaderIsTrusted() throws {
        var anchor = ""
        let seen = try Self.seen { issued, t, r in
            anchor = issued.pki.readerCA.subject
            let docs = try r.docRequests.map { doc in
                try DocRequest(
                    itemsRequestBytes: doc.itemsRequestBytes,
                    readerAuth: ReaderAuthentication.sign(
                        transcript: t, itemsRequestBytes: doc.itemsRequestBytes, key: issued.pki.readerKey,
                        algorithm: .es256, certificateChain: [issued.pki.reader]))
            }
            return Self.with(r, all: [try Self.all(issued, t, r)], docs: docs)
        }
        #expect(seen == [.trusted(anchor: anchor), .trusted(anchor: anchor)])
    }

    // MARK: - The reader's side

    /// A reader with a key, against a holder engaging with `version`: what it sends, and how
    /// the holder saw it.
    static func readerSends(
        engagement version: EngagementVersion, request: DeviceRequestVersion?
    ) throws -> (DeviceRequest, [RequesterAuthentication], anchor: String) {
        let issued = try I()
        let config = HolderConfiguration(readerTrustAnchors: [issued.pki.readerCA], untrustedReaders: .refuse)
        var x = try InMemoryExchange(
            credentials: [issued.issue()], configuration: config, iacas: [issued.pki.iaca],
            identity: issued.readerIdentity, time: issued.now, engagementVersion: version)
        let sent = try x.reader.deviceRequest([mDL], version: request)
        var event: ReaderEvent?
        for reply in x.deliver(try x.reader.establishment(for: sent), decide: { .approveAll($0) }) {
            event = try x.reader.receive(reply, at: issued.now)
        }
        #expect(try #require(event?.verified).documents.map(\.docType) == [I.mDL])
        return (sent, x.records.map(\.requester.authentication), issued.pki.readerCA.subject)
    }

    @Test func toAHolderAdvertisingReaderAuthAllTheReaderSignsOnlyReaderAuthAll() throws {
        let (sent, seen, anchor) = try Self.readerSends(engagement: .secondEdition, request: nil)
        #expect(sent.version == "1.1")
        #expect(sent.readerAuthAll.count == 1)
        #expect(sent.docRequests.allSatisfy { $0.readerAuth == nil })
        #expect(seen == [.trusted(anchor: anchor)])
    }

    @Test func requestVersion10ForcesPerDocumentReaderAuthAgainstA11Engagement() throws {
        let (sent, seen, anchor) = try Self.readerSends(engagement: .secondEdition, request: .firstEdition)
        #expect(sent.version == "1.0")
        #expect(sent.readerAuthAll.isEmpty)
        #expect(sent.docRequests.allSatisfy { $0.readerAuth != nil })
        #expect(seen == [.trusted(anchor: anchor)])
    }

    @Test func toA10EngagementTheReaderSendsAFirstEditionRequest() throws {
        let (sent, seen, anchor) = try Self.readerSends(engagement: .firstEdition, request: nil)
        #expect(sent.version == "1.0")
        #expect(sent.readerAuthAll.isEmpty && sent.docRequests.allSatisfy { $0.readerAuth != nil })
        #expect(seen == [.trusted(anchor: anchor)])
    }
}

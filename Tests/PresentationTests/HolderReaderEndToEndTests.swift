import CBOR
import COSE
import Consent
import Foundation
import ISO18013
import MdocCrypto
import Presentation
import TestSupport
import Testing

/// The holder and reader engines talking over an in-memory transport.
struct HolderReaderEndToEndTests {
    typealias D = AnnexDCredential

    @Test func anUnauthenticatedRequestIsAnsweredWithTheApprovedElementsOnly() throws {
        var x = try InMemoryExchange(credentials: [D.credential()], iacas: [D.iaca], time: D.time)
        let event = try x.request([D.request(["family_name", "portrait", "document_number"])]) { request in
            #expect(request.requester.authentication == .unauthenticated)
            #expect(request.warning != nil)  // default policy asks, with a warning
            return .approve([D.mDL: [ElementID(D.ns, "family_name"), ElementID(D.ns, "portrait")]])
        }
        let response = try #require(event?.verified)
        #expect(response.isValid, "\(response.documents.flatMap(\.failures))")
        let doc = try #require(response.documents.first)
        #expect(Set(doc.elements.map(\.id.identifier)) == ["family_name", "portrait"])
        #expect(doc.notReturned.map(\.id.identifier) == ["document_number"])
        #expect(doc.deviceAuthKind == "deviceSignature")
        // The element not approved is absent from the bytes that travelled.
        guard case .response(_, let raw, _) = event! else { return }
        #expect(!containsSubsequence(raw, Array("document_number".utf8) + [0x6C]))  // id followed by "elementValue" key
        #expect(x.records.map(\.outcome) == [.sent])
        #expect(x.records[0].elementsSent == [ElementID(D.ns, "family_name"), ElementID(D.ns, "portrait")])
    }

    @Test func theIssuedItemBytesTravelUnchanged() throws {
        var x = try InMemoryExchange(credentials: [D.credential()], iacas: [D.iaca], time: D.time)
        let event = try x.request([D.request(["portrait"])])
        guard case .response(_, let raw, _) = try #require(event) else { return }
        let sentItem = try DeviceResponse(bytes: raw).documents[0].issuerSigned.nameSpaces[0].items[0]
        let issued = try D.credential().issuerSigned.nameSpaces[0].items.first { $0.elementIdentifier == "portrait" }
        #expect(sentItem.bytes.bytes == issued?.bytes.bytes)
    }

    @Test func deviceMacIsUsedWhenConfiguredAndVerifies() throws {
        var config = HolderConfiguration()
        config.deviceAuth = .mac
        var x = try InMemoryExchange(
            credentials: [D.credential()], configuration: config, iacas: [D.iaca], time: D.time)
        let response = try #require(try x.request([D.request(["family_name"])])?.verified)
        #expect(response.documents[0].deviceAuthKind == "deviceMac")
        #expect(response.isValid, "\(response.documents.flatMap(\.failures))")
    }

    @Test func aDeclineSendsDocumentErrorsAndNoData() throws {
        var x = try InMemoryExchange(credentials: [D.credential()], iacas: [D.iaca], time: D.time)
        let response = try #require(try x.request([D.request(["family_name"])]) { _ in .decline }?.verified)
        #expect(response.documents.isEmpty)
        #expect(response.documentErrors.map(\.docType) == [D.mDL])
        #expect(x.records.map(\.outcome) == [.declined])
        #expect(!x.holder.isEnded)  // the reader may ask again
    }

    @Test func anUnknownDocTypeGetsADocumentErrorWithoutAskingForIt() throws {
        var x = try InMemoryExchange(credentials: [D.credential()], iacas: [D.iaca], time: D.time)
        let event = try x.request([
            D.request(["family_name"]), D.request(["age_over_18"], docType: "org.example.loyalty.1"),
        ])
        let response = try #require(event?.verified)
        #expect(x.consentRequests.count == 1)
        #expect(x.consentRequests[0].documents.map(\.docType) == [D.mDL])
        #expect(response.documents.map(\.docType) == [D.mDL])
        #expect(response.documentErrors.map(\.docType) == ["org.example.loyalty.1"])
        #expect(response.isValid)
    }

    @Test func elementsTheCredentialLacksAreMarkedAndReturnedAsErrors() throws {
        var x = try InMemoryExchange(credentials: [D.credential()], iacas: [D.iaca], time: D.time)
        let response = try #require(try x.request([D.request(["family_name", "age_over_21"])])?.verified)
        let asked = x.consentRequests[0].documents[0].elements
        #expect(asked.first { $0.id.identifier == "age_over_21" }?.available == false)
        #expect(asked.first { $0.id.identifier == "family_name" }?.available == true)
        #expect(response.documents[0].notReturned.map(\.id.identifier) == ["age_over_21"])
    }

    @Test func aSecondRequestInTheSameSessionIsAnswered() throws {
        var x = try InMemoryExchange(credentials: [D.credential()], iacas: [D.iaca], time: D.time)
        _ = try x.request([D.request(["family_name"])])
        let second = try #require(try x.request([D.request(["issue_date"])], first: false)?.verified)
        #expect(second.documents[0].elements.map(\.id.identifier) == ["issue_date"])
        #expect(second.isValid)
        #expect(x.holder.responsesSent == 2)
    }

    @Test func theReaderEndsTheSessionWithStatus20() throws {
        var x = try InMemoryExchange(credentials: [D.credential()], iacas: [D.iaca], time: D.time)
        _ = try x.request([D.request(["family_name"])])
        let out = x.deliver(x.reader.termination()) { _ in nil }
        #expect(out.isEmpty)
        #expect(x.terminations == [.readerEnded])
        #expect(x.holder.receive(try x.reader.request([D.request(["family_name"])]), at: D.time).isEmpty)
    }

    @Test func theHolderEndsTheSessionWithStatus20() throws {
        var x = try InMemoryExchange(credentials: [D.credential()], iacas: [D.iaca], time: D.time)
        _ = try x.request([D.request(["family_name"])])
        let outputs = x.holder.end()
        guard case .send(let bytes) = outputs.first else {
            Issue.record("expected a message")
            return
        }
        #expect(bytes == SessionData(status: .sessionTermination).encoded)
        guard case .ended(let status) = try x.reader.receive(bytes, at: D.time) else {
            Issue.record("expected the end")
            return
        }
        #expect(status == 20)
    }

    @Test func aDisconnectAfterTheResponseIsACompletedPresentation() throws {
        var x = try InMemoryExchange(credentials: [D.credential()], iacas: [D.iaca], time: D.time)
        _ = try x.request([D.request(["family_name"])])
        #expect(x.holder.transportClosed().count == 1)
        #expect(x.holder.state == .ended(.transportClosed))
        #expect(x.holder.responsesSent == 1)
    }
}

func containsSubsequence(_ haystack: [UInt8], _ needle: [UInt8]) -> Bool {
    guard needle.count <= haystack.count else { return false }
    return (0...(haystack.count - needle.count)).contains { Array(haystack[$0..<($0 + needle.count)]) == needle }
}

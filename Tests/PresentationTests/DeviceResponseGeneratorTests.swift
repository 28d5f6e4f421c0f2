import CBOR
import Consent
import Foundation
import ISO18013
import Presentation
import Testing

/// The online flow builds its DeviceResponse with the same rules as the BLE holder.
struct DeviceResponseGeneratorTests {
    typealias I = IssuedCredentials

    @Test func anOnlineResponseCarriesOnlyApprovedElementsAndVerifiesAgainstItsTranscript() throws {
        let issued = try I()
        let credential = try issued.issue()
        let requester = Requester(
            displayName: "verifier.example", identifier: "x509_san_dns:verifier.example",
            authentication: .trusted(anchor: "CN=verifier root"))
        let items = ItemsRequest(
            docType: I.mDL,
            nameSpaces: [.init(I.ns, [.init("family_name"), .init("age_over_21"), .init("birth_date")])])
        let transcript = SessionTranscript(
            handover: OnlineHandover.openID4VP(
                clientID: "x509_san_dns:verifier.example", nonce: "n-0S6_WzA2Mj", jwkThumbprint: nil,
                responseURI: "https://verifier.example/post"))
        let decision = ConsentDecision.approve([
            I.mDL: [ElementID(I.ns, "family_name"), ElementID(I.ns, "age_over_21")]
        ])
        let (response, records) = DeviceResponseGenerator.respond(
            to: [
                RequestedDocument(itemsRequest: items, credential: credential, requester: requester),
                RequestedDocument(
                    itemsRequest: ItemsRequest(docType: "org.example.none", nameSpaces: []), credential: nil,
                    requester: requester),
            ], decision: decision, transcript: transcript)
        let verified = try ResponseVerifier.verify(
            response.encoded, transcript: transcript, trustAnchors: [issued.pki.iaca], eReaderKey: nil, at: issued.now)
        #expect(verified.isValid, "\(verified.documents.flatMap(\.failures))")
        #expect(Set(verified.documents[0].elements.map(\.id.identifier)) == ["family_name", "age_over_21"])
        #expect(verified.documents[0].notReturned.map(\.id.identifier) == ["birth_date"])
        #expect(verified.documentErrors.map(\.docType) == ["org.example.none"])
        #expect(records.map(\.outcome) == [.sent, .notReturned(reason: "no credential of this doc type")])
        // Against another transcript the device signature fails.
        let other = SessionTranscript(
            handover: OnlineHandover.openID4VP(
                clientID: "x509_san_dns:verifier.example", nonce: "other", jwkThumbprint: nil,
                responseURI: "https://verifier.example/post"))
        let wrong = try ResponseVerifier.verify(
            response.encoded, transcript: other, trustAnchors: [issued.pki.iaca], eReaderKey: nil, at: issued.now)
        #expect(!wrong.isValid)
    }
}

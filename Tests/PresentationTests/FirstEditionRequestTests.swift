import CBOR
import COSE
import Consent
import Foundation
import ISO18013
import MdocCrypto
import Presentation
import TestSupport
import Testing

/// `readerAuthAll` and `deviceRequestInfo` belong to DeviceRequest "1.1": in a "1.0" request
/// the holder ignores them (no authentication from them, no error), as multipaz does.
struct FirstEditionRequestTests {
    typealias I = IssuedCredentials

    static let items = ItemsRequest(docType: I.mDL, nameSpaces: [.init(I.ns, [.init("family_name")])])
    static let info = EmbeddedCBOR(["useCases": [["mandatory": true, "documentSets": [[0]]]]])

    /// Asks the user about every reader; returns what the holder showed and the response.
    static func present(version: String) throws -> (RequesterAuthentication, VerifiedResponse) {
        let issued = try I()
        let config = HolderConfiguration(readerTrustAnchors: [issued.pki.readerCA], untrustedReaders: .ask)
        var x = try InMemoryExchange(
            credentials: [issued.issue()], configuration: config, iacas: [issued.pki.iaca], time: issued.now)
        let unsigned = DeviceRequest(
            docRequests: [DocRequest(itemsRequest: Self.items)], version: version, deviceRequestInfo: Self.info)
        // A valid readerAuthAll by the trusted reader, over this session's bytes.
        let all = try ReaderAuthenticationAll.sign(
            sessionTranscript: x.reader.transcript, itemsRequests: unsigned.docRequests.map(\.itemsRequestBytes),
            deviceRequestInfo: Self.info, key: issued.pki.readerKey, chain: [issued.pki.reader])
        let request = DeviceRequest(
            docRequests: unsigned.docRequests, version: version, deviceRequestInfo: Self.info, readerAuthAll: [all])
        var event: ReaderEvent?
        for reply in x.deliver(try x.reader.establishment(for: request), decide: { .approveAll($0) }) {
            event = try x.reader.receive(reply, at: issued.now)
        }
        let asked = try #require(x.consentRequests.first)
        return (asked.requester.authentication, try #require(event?.verified))
    }

    @Test func aValidReaderAuthAllInA10RequestDoesNotAuthenticateTheReader() throws {
        let (authentication, response) = try Self.present(version: "1.0")
        #expect(authentication == .unauthenticated)
        // deviceRequestInfo is ignored too: the response is as usual.
        #expect(response.isValid, "\(response.documents.flatMap(\.failures))")
        #expect(response.documents.map(\.docType) == [I.mDL])
    }

    @Test func theSameReaderAuthAllInA11RequestAuthenticatesIt() throws {
        let issued = try I()
        let (authentication, response) = try Self.present(version: "1.1")
        #expect(authentication == .trusted(anchor: issued.pki.readerCA.subject))
        #expect(response.isValid, "\(response.documents.flatMap(\.failures))")
    }
}

import Consent
import ISO18013

/// One requested document of an online presentation (OpenID4VP): what is asked, the
/// credential that would answer, and who asks.
public struct RequestedDocument: Sendable {
    public var itemsRequest: ItemsRequest
    public var credential: PresentableCredential?
    public var requester: Requester

    public init(itemsRequest: ItemsRequest, credential: PresentableCredential?, requester: Requester) {
        self.itemsRequest = itemsRequest
        self.credential = credential
        self.requester = requester
    }
}

/// Builds a DeviceResponse outside a BLE session (online presentation), with exactly the
/// rules the proximity holder applies: only approved elements, the issued item bytes
/// unchanged, element errors for what was not returned, documentErrors for documents not
/// returned, and a deviceSignature over the given transcript.
public enum DeviceResponseGenerator {
    public static func respond(
        to documents: [RequestedDocument], decision: ConsentDecision, transcript: SessionTranscript
    ) -> (response: DeviceResponse, records: [PresentationRecord]) {
        let pending = PendingRequest(
            docs: documents.map {
                PendingRequest.Doc(
                    docRequest: DocRequest(itemsRequest: $0.itemsRequest), requester: $0.requester,
                    credential: $0.credential, refusal: nil)
            }, requester: documents.first?.requester ?? Requester(ReaderAuthenticationResult.absent),
            consentRequest: nil)
        let builder = ResponseBuilder(transcript: transcript, eReaderKey: nil, deviceAuth: .signature)
        let (response, records) = builder.build(pending, decision: decision)
        return (response, records)
    }
}

import Consent
import Foundation
import ISO18013
import MdocCrypto

/// A decrypted DeviceRequest, with each DocRequest's reader authentication, the credential
/// that would answer it, and whether policy refuses it before the user is asked.
struct PendingRequest: Sendable {
    struct Doc: Sendable {
        var docRequest: DocRequest
        var requester: Requester
        var credential: PresentableCredential?
        /// Why policy refuses this document without asking, if it does.
        var refusal: String?
    }

    var docs: [Doc]
    var requester: Requester
    var consentRequest: ConsentRequest?

    static func analyse(
        _ request: DeviceRequest, transcript: SessionTranscript, credentials: [PresentableCredential],
        configuration: HolderConfiguration, at now: Date
    ) -> PendingRequest {
        var docs: [Doc] = []
        var warnings: [String] = []
        for docRequest in request.docRequests {
            let auth = ReaderAuthentication.verify(
                docRequest: docRequest, in: request, transcript: transcript,
                trustAnchors: configuration.readerTrustAnchors, at: now)
            let requester = Requester(auth)
            var refusal: String?
            if !auth.isTrusted {
                switch configuration.untrustedReaders {
                case .refuse: refusal = "reader refused by policy (\(requester.authentication.summary))"
                case .ask: warnings.append("The reader is \(requester.authentication.summary).")
                case .allow: break
                }
            }
            let docType = docRequest.itemsRequest.docType
            docs.append(
                Doc(
                    docRequest: docRequest, requester: requester,
                    credential: credentials.first { $0.docType == docType }, refusal: refusal))
        }
        let requester = docs.first?.requester ?? Requester(ReaderAuthenticationResult.absent)
        let askable = docs.filter { $0.refusal == nil && $0.credential != nil }
        var consentRequest: ConsentRequest?
        if !askable.isEmpty {
            let documents = askable.map { doc in
                let available = doc.credential!.elements
                return DocumentRequest(
                    docType: doc.docRequest.itemsRequest.docType, credentialID: doc.credential!.id,
                    elements: doc.docRequest.itemsRequest.requestedElements.map { ns, element in
                        let id = ElementID(ns, element.identifier)
                        return RequestedElement(
                            id, intentToRetain: element.intentToRetain, available: available.contains(id))
                    }, requester: doc.requester)
            }
            consentRequest = ConsentRequest(
                channel: .ble, requester: askable[0].requester, documents: documents,
                warning: warnings.isEmpty ? nil : Array(Set(warnings)).sorted().joined(separator: " "))
        }
        return PendingRequest(docs: docs, requester: requester, consentRequest: consentRequest)
    }
}

extension Requester {
    /// The requester as reader authentication describes it.
    init(_ auth: ReaderAuthenticationResult) {
        let chain = auth.chain.map(\.der)
        let subject = auth.readerSubject
        let name = subject.flatMap(Self.commonName) ?? subject ?? "unauthenticated reader"
        switch auth.status {
        case .absent:
            self.init(displayName: "unauthenticated reader", authentication: .unauthenticated)
        case .trusted:
            self.init(
                displayName: name, identifier: subject,
                authentication: .trusted(anchor: auth.trustAnchor?.subject ?? "a configured reader root"),
                certificateChain: chain)
        case .untrusted:
            self.init(
                displayName: name, identifier: subject,
                authentication: .untrusted(reason: auth.failure ?? "not trusted"), certificateChain: chain)
        case .invalid:
            self.init(
                displayName: name, identifier: subject,
                authentication: .invalid(reason: auth.failure ?? "invalid"), certificateChain: chain)
        }
    }

    /// The CN of an RFC 2253 subject ("C=US,CN=reader" → "reader").
    static func commonName(_ subject: String) -> String? {
        for part in subject.split(separator: ",") {
            let trimmed = part.trimmingCharacters(in: .whitespaces)
            if trimmed.hasPrefix("CN=") { return String(trimmed.dropFirst(3)) }
        }
        return nil
    }
}

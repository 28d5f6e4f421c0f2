import Consent
import ISO18013

/// One document of a response being built: what may be disclosed, before the response
/// size is known.
struct DraftDocument {
    var docType: String
    var credential: PresentableCredential
    /// The requested elements (errors are reported for those not disclosed).
    var requested: [ElementID]
    var disclosed: Set<ElementID>
    var deviceSigned: DeviceSigned
    /// The index of this document's record.
    var record: Int

    var document: Document {
        var byNameSpace: [String: Set<String>] = [:]
        for id in disclosed { byNameSpace[id.nameSpace, default: []].insert(id.identifier) }
        var seen = Set<ElementID>()
        let errors = requested.filter { !disclosed.contains($0) && seen.insert($0).inserted }.map {
            (nameSpace: $0.nameSpace, element: $0.identifier, code: ErrorCode.dataNotReturned)
        }
        return Document(
            docType: docType, issuerSigned: credential.issuerSigned.disclosing(byNameSpace),
            deviceSigned: deviceSigned, errors: errors)
    }

    /// The disclosed element whose IssuerSignedItemBytes are largest.
    var largestDisclosed: ElementID? {
        var best: (id: ElementID, size: Int)?
        for nameSpace in credential.issuerSigned.nameSpaces {
            for item in nameSpace.items {
                let id = ElementID(nameSpace.name, item.elementIdentifier)
                guard disclosed.contains(id), best.map({ item.bytes.bytes.count > $0.size }) ?? true else { continue }
                best = (id, item.bytes.bytes.count)
            }
        }
        return best?.id
    }
}

extension ResponseBuilder {
    /// The DeviceResponse of `drafts`, never larger than `limit` (the smallest
    /// `maximumResponseSize` of the request, second edition): while it is larger, the largest
    /// disclosed element is left out (an element error says so, and it leaves the record);
    /// a document left with nothing is replaced by a documentError (and if even the errors do
    /// not fit, only the status is sent). DeviceSigned does not
    /// cover IssuerSigned items, so no signature is made again.
    func fitted(
        _ drafts: [DraftDocument], documentErrors: [(docType: String, code: Int)], records: [PresentationRecord],
        limit: Int?
    ) -> (DeviceResponse, [PresentationRecord]) {
        var drafts = drafts
        var documentErrors = documentErrors
        var records = records
        func response() -> DeviceResponse {
            DeviceResponse(documents: drafts.map(\.document), documentErrors: documentErrors)
        }
        guard let limit else { return (response(), records) }
        var current = response()
        while current.encoded.count > limit, !drafts.isEmpty {
            // The document with the largest element gives it up first.
            let sizes = drafts.map { draft in draft.largestDisclosed.map { size(of: $0, in: draft) } ?? 0 }
            let index = sizes.indices.max { sizes[$0] < sizes[$1] } ?? 0
            if let id = drafts[index].largestDisclosed { drafts[index].disclosed.remove(id) }
            let record = drafts[index].record
            records[record].elementsSent = drafts[index].disclosed.sorted()
            if drafts[index].disclosed.isEmpty {
                documentErrors.append((drafts[index].docType, ErrorCode.dataNotReturned))
                records[record].outcome = .notReturned(
                    reason: "nothing fits the reader's maximumResponseSize of \(limit) bytes")
                records[record].credentialID = nil
                drafts.remove(at: index)
            }
            current = response()
        }
        // A limit below even the errors: the bare status is all that is sent.
        if current.encoded.count > limit { current = DeviceResponse(documents: []) }
        return (current, records)
    }

    private func size(of id: ElementID, in draft: DraftDocument) -> Int {
        let nameSpace = draft.credential.issuerSigned.nameSpaces.first { $0.name == id.nameSpace }
        return nameSpace?.items.first { $0.elementIdentifier == id.identifier }?.bytes.bytes.count ?? 0
    }
}

import Consent
import ISO18013
import MdocCrypto

/// How a DeviceRequest meets the credentials held, with the one engine (``OptionMatching``)
/// the DCQL matcher uses: `alternativeDataElements` are claim-set options of one element,
/// use cases are credential sets of DocRequests.
enum RequestMatching {
    /// The credential answering `request`: of its doc type, from an issuer `issuerIdentifiers`
    /// lists (when given); the first that can deliver every requested element (directly or by
    /// an alternative) or else the first of them.
    static func credential(
        for request: ItemsRequest, info: DocRequestInfo, among credentials: [PresentableCredential]
    ) -> PresentableCredential? {
        let candidates = credentials.filter { $0.docType == request.docType && issuerAccepted(info, $0) }
        // One candidate (or none) is the answer whether or not it is complete.
        guard candidates.count > 1 else { return candidates.first }
        let complete = candidates.first { candidate in
            let held = candidate.elements
            return elements(request, info: info, credential: candidate).allSatisfy {
                $0.available || alternative(for: $0.id, info: info, held: held) != nil
            }
        }
        return complete ?? candidates.first
    }

    /// The first alternative set the credential holds whole, for a requested element it lacks.
    static func alternative(for id: ElementID, info: DocRequestInfo, held: Set<ElementID>) -> [ElementID]? {
        let options = info.alternatives(for: ElementReference(id.nameSpace, id.identifier)).map { set in
            set.map { ElementID($0.nameSpace, $0.identifier) }
        }
        return OptionMatching.first(options, where: held.contains)
    }

    /// `issuerIdentifiers` names the issuing authority by key identifier: a credential matches
    /// when a certificate of its issuerAuth x5chain has one of them as its
    /// authorityKeyIdentifier (the IACA that signed the document signer) or subjectKeyIdentifier.
    static func issuerAccepted(_ info: DocRequestInfo, _ credential: PresentableCredential) -> Bool {
        guard let accepted = info.issuerIdentifiers else { return true }
        for der in credential.issuerSigned.issuerAuth.x5chain ?? [] {
            guard let certificate = try? Certificate.cached(der: der) else { continue }
            let identifiers = [certificate.authorityKeyIdentifier, certificate.subjectKeyIdentifier].compactMap { $0 }
            if identifiers.contains(where: accepted.contains) { return true }
        }
        return false
    }

    /// What the user is asked for one document: every requested element (available when the
    /// credential holds it) and, for one it lacks, the first alternative set it holds whole.
    static func elements(_ request: ItemsRequest, info: DocRequestInfo, credential: PresentableCredential?)
        -> [RequestedElement]
    {
        let held = credential?.elements ?? []
        var elements: [RequestedElement] = []
        var seen = Set<ElementID>()
        for (nameSpace, element) in request.requestedElements {
            let id = ElementID(nameSpace, element.identifier)
            guard seen.insert(id).inserted else { continue }
            elements.append(RequestedElement(id, intentToRetain: element.intentToRetain, available: held.contains(id)))
            guard credential != nil, !held.contains(id), let set = alternative(for: id, info: info, held: held) else {
                continue
            }
            for alternative in set where seen.insert(alternative).inserted {
                elements.append(
                    RequestedElement(
                        alternative, intentToRetain: element.intentToRetain, available: true, alternativeFor: id))
            }
        }
        return elements
    }

    /// Applies the use cases of `deviceRequestInfo`: each is answered by its first document
    /// set whose documents all have a credential and no refusal; a document named by some use
    /// case but by no chosen set is not returned, and one of a mandatory use case that cannot
    /// be answered says so. Documents no use case names are answered as in the first edition.
    static func applyUseCases(_ request: DeviceRequest, to docs: inout [PendingRequest.Doc]) -> [ConsentUseCase] {
        let info: DeviceRequestInfo
        do {
            guard let read = try DeviceRequestInfo(of: request) else { return [] }
            info = read
        } catch {
            for index in docs.indices where docs[index].refusal == nil {
                docs[index].refusal = "unreadable deviceRequestInfo: \(error)"
            }
            return []
        }
        let answerable = Set(docs.indices.filter { docs[$0].refusal == nil && docs[$0].credential != nil })
        let resolution = OptionMatching.resolve(
            info.useCases.map { OptionMatching.OptionSet(options: $0.documentSets, required: $0.mandatory) },
            satisfied: answerable)
        let useCases = info.useCases.enumerated().map { index, useCase in
            ConsentUseCase(
                index: index, mandatory: useCase.mandatory, purposeHints: useCase.purposeHints,
                answeredBy: resolution.chosen[index]?.map { docs[$0].docRequest.itemsRequest.docType })
        }
        let answered = resolution.answered
        for (index, useCase) in info.useCases.enumerated() {
            for docIndex in Set(useCase.documentSets.flatMap { $0 }) where docs[docIndex].refusal == nil {
                if answered.contains(docIndex) {
                    if docs[docIndex].useCase == nil, resolution.chosen[index]?.contains(docIndex) == true {
                        docs[docIndex].useCase = useCases[index]
                    }
                } else if resolution.unsatisfiedRequired.contains(index) {
                    docs[docIndex].refusal = "\(useCases[index].summary) cannot be answered with the credentials held"
                } else {
                    docs[docIndex].refusal = "not in the document set answering \(useCases[index].summary)"
                }
            }
        }
        return useCases
    }
}

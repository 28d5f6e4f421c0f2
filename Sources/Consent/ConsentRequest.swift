/// Everything a consent front-end needs to ask the user, the same for BLE and online.
public struct ConsentRequest: Sendable, Codable, Hashable {
    public var channel: PresentationChannel
    /// Who asks (for several documents: the first one's requester).
    public var requester: Requester
    public var documents: [DocumentRequest]
    /// A warning the front-end must show before anything else (an untrusted reader, ...).
    public var warning: String?
    /// The use cases of an ISO 18013-5 second-edition request (empty otherwise), including
    /// the mandatory ones no credential held can answer.
    public var useCases: [ConsentUseCase]

    public init(
        channel: PresentationChannel, requester: Requester, documents: [DocumentRequest], warning: String? = nil,
        useCases: [ConsentUseCase] = []
    ) {
        self.channel = channel
        self.requester = requester
        self.documents = documents
        self.warning = warning
        self.useCases = useCases
    }

    /// The mandatory use cases no credential held can answer.
    public var unsatisfiableMandatoryUseCases: [ConsentUseCase] {
        useCases.filter { $0.mandatory && !$0.isSatisfiable }
    }
}

/// The answer: per document, the elements the holder agreed to send; or no.
public enum ConsentDecision: Sendable, Codable, Hashable {
    case decline
    /// docType => approved elements. A document absent from the map is not sent.
    case approve([String: Set<ElementID>])

    /// The elements approved for `docType` (empty when declined).
    public func approved(for docType: String) -> Set<ElementID> {
        if case .approve(let m) = self { return m[docType] ?? [] }
        return []
    }

    /// Everything requested and available, for "approve all".
    public static func approveAll(_ request: ConsentRequest) -> ConsentDecision {
        var m: [String: Set<ElementID>] = [:]
        for doc in request.documents where doc.credentialID != nil {
            m[doc.docType] = Set(doc.elements.filter(\.available).map(\.id))
        }
        return .approve(m)
    }
}

/// A consent front-end: terminal, D-Bus agent, kiosk policy. Called by the BLE and the
/// online flow alike.
public protocol ConsentPrompt: Sendable {
    func decide(_ request: ConsentRequest) async -> ConsentDecision
}

import ISO18013

/// What a DeviceResponse released, by name only: doc types, element identifiers, errors.
/// Never element values (a conformance report is kept and shared).
public struct ResponseSummary: Sendable, Hashable, CustomStringConvertible {
    public struct DocumentSummary: Sendable, Hashable {
        public var docType: String
        /// `namespace/identifier` of each released element.
        public var elements: [String]
    }

    public var status: UInt64
    public var documents: [DocumentSummary]
    public var documentErrors: [String]

    public init(_ response: DeviceResponse) {
        status = response.status
        documents = response.documents.map { document in
            DocumentSummary(
                docType: document.docType,
                elements: document.issuerSigned.nameSpaces.flatMap { ns in
                    ns.items.map { "\(ns.name)/\($0.elementIdentifier)" }
                })
        }
        documentErrors = response.documentErrors.map { "\($0.docType): \($0.code)" }
    }

    /// Elements released across documents.
    public var releasedElements: [String] { documents.flatMap(\.elements) }

    public var description: String {
        var parts = ["DeviceResponse status \(status)"]
        parts.append("\(documents.count) document(s)")
        if !releasedElements.isEmpty { parts.append("elements [\(releasedElements.joined(separator: ", "))]") }
        if !documentErrors.isEmpty { parts.append("documentErrors [\(documentErrors.joined(separator: ", "))]") }
        return parts.joined(separator: ", ")
    }
}

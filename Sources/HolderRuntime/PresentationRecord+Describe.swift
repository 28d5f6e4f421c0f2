import Presentation

extension PresentationRecord {
    /// What went to whom, for a log line and a session summary: doc type, element
    /// identifiers and requester, never values.
    public var summary: String {
        switch outcome {
        case .sent:
            "sent \(docType) [\(elementsSent.map(\.description).joined(separator: ", "))] to \(requester.displayName)"
        case .declined: "declined \(docType) for \(requester.displayName)"
        case .notReturned(let reason): "did not return \(docType): \(reason)"
        }
    }
}

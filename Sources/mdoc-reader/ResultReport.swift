import CBOR
import Foundation
import Presentation
import PrintableText

/// How the reader shows a verified response: text for people, JSON for programs.
struct ResultReport: Encodable {
    struct Element: Encodable {
        var nameSpace: String
        var identifier: String
        var value: String
        var digestMatches: Bool
    }

    struct Document: Encodable {
        var docType: String
        var valid: Bool
        var documentSigner: String?
        var trustedBy: String?
        var deviceAuthentication: String
        var elements: [Element]
        var notReturned: [String]
        var failures: [String]
        /// The credential's status (valid, invalid, suspended, unknown); nil when the MSO
        /// carries no status reference.
        var status: String? = nil
        /// Why the status is unknown, or when it was checked.
        var statusDetail: String? = nil
    }

    var valid: Bool
    /// The DeviceResponse status; nil when no DeviceResponse came.
    var status: UInt64?
    var documents: [Document]
    var documentErrors: [String]
    /// How the session ended when it ended without a DeviceResponse (`mdoc-reader request`).
    var sessionEnd: String?

    /// - Parameter requireDocuments: a response without documents (the holder declined)
    ///   counts as not valid (`mdoc-reader request`).
    init(_ r: VerifiedResponse, requireDocuments: Bool = false) {
        valid = r.isValid && (!requireDocuments || !r.documents.isEmpty)
        status = r.status
        documentErrors = r.documentErrors.map { "\($0.docType) (error \($0.code))" }
        documents = r.documents.map { d in
            Document(
                docType: d.docType, valid: d.isValid, documentSigner: d.issuer.documentSigner?.subject,
                trustedBy: d.issuer.trustAnchor?.subject,
                deviceAuthentication: d.deviceAuthFailure == nil
                    ? "\(d.deviceAuthKind) verified" : "\(d.deviceAuthKind) FAILED",
                elements: d.elements.map {
                    Element(
                        nameSpace: $0.id.nameSpace, identifier: $0.id.identifier,
                        value: $0.value.diagnostic(maxBytes: 16),
                        digestMatches: $0.digestMatches)
                }, notReturned: d.notReturned.map { "\($0.id) (error \($0.code))" }, failures: d.failures)
        }
    }

    /// The session ended without a DeviceResponse; `how` says how.
    init(sessionEnded how: String) {
        valid = false
        status = nil
        documents = []
        documentErrors = []
        sessionEnd = how
    }

    func json() throws -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
        return String(decoding: try encoder.encode(self), as: UTF8.self)
    }

    /// Text for a terminal: every string the holder sent (docTypes, names, identifiers, values,
    /// certificate names) is made printable first (``RemoteText``).
    func text() -> String {
        func p(_ text: String) -> String { RemoteText.printable(text) }
        guard let status else { return "No DeviceResponse: \(p(sessionEnd ?? "none received"))\n" }
        var out = "DeviceResponse status \(status): \(valid ? "VALID" : "NOT VALID")\n"
        if documents.isEmpty { out += "No documents returned.\n" }
        for d in documents {
            out += "\n\(p(d.docType)): \(d.valid ? "valid" : "NOT VALID")\n"
            if let s = d.documentSigner {
                out += "  issued by \(p(s))" + (d.trustedBy.map { ", trusted by \(p($0))" } ?? "") + "\n"
            }
            out += "  \(p(d.deviceAuthentication))\n"
            if let status = d.status {
                let detail = d.statusDetail.map { " (\(RemoteText.printable($0, limit: 500)))" } ?? ""
                out += "  status: \(status)\(detail)\n"
            }
            for e in d.elements {
                out += "  \(p(e.nameSpace)):\(p(e.identifier)) = \(p(e.value))"
                out += "\(e.digestMatches ? "" : "  [DIGEST MISMATCH]")\n"
            }
            for n in d.notReturned { out += "  not returned: \(p(n))\n" }
            for f in d.failures { out += "  problem: \(RemoteText.printable(f, limit: 1000))\n" }
        }
        for e in documentErrors { out += "\nnot returned: \(p(e))\n" }
        return out
    }
}

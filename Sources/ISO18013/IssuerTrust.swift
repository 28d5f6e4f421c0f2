import MdocCrypto

/// The IACA certificates issuer data authentication trusts: anchors for any docType (PEM files
/// given on the command line) and anchors scoped to the docTypes a trust list (VICAL) names.
public struct IssuerTrust: Sendable {
    /// An IACA trusted only for some docTypes, and where that trust comes from.
    public struct ScopedAnchor: Sendable {
        public var certificate: Certificate
        public var docTypes: Set<String>
        /// Where the scope comes from, for messages, e.g. "VICAL AAMVA 2025-11-18T18:38:12Z".
        public var source: String

        public init(certificate: Certificate, docTypes: Set<String>, source: String) {
            self.certificate = certificate
            self.docTypes = docTypes
            self.source = source
        }
    }

    /// Trusted for every docType.
    public var anchors: [Certificate]
    /// Trusted only for their docTypes.
    public var scopedAnchors: [ScopedAnchor]

    public init(anchors: [Certificate] = [], scopedAnchors: [ScopedAnchor] = []) {
        self.anchors = anchors
        self.scopedAnchors = scopedAnchors
    }

    public var isEmpty: Bool { anchors.isEmpty && scopedAnchors.isEmpty }

    /// The anchors a document of `docType` may chain to.
    public func anchors(for docType: String) -> [Certificate] {
        anchors + scopedAnchors.filter { $0.docTypes.contains(docType) }.map(\.certificate)
    }
}

import FoundationEssentials
import MdocCrypto

extension IssuerDataAuthentication {
    /// ``verify(_:docType:trustAnchors:at:)`` with the anchors `trust` gives `docType`: an IACA
    /// from a trust list authenticates only documents of the docTypes the list names for it.
    public static func verify(
        _ issuerSigned: IssuerSigned, docType: String, trust: IssuerTrust, at time: Date
    ) -> IssuerAuthenticationResult {
        var result = verify(issuerSigned, docType: docType, trustAnchors: trust.anchors(for: docType), at: time)
        if result.trustAnchor == nil, let note = outOfScope(issuerSigned, docType: docType, trust: trust, at: time) {
            result.failures.append(note)
        }
        return result
    }

    /// Why an IACA the chain does lead to is not used: it is trusted for other docTypes only.
    private static func outOfScope(
        _ issuerSigned: IssuerSigned, docType: String, trust: IssuerTrust, at time: Date
    ) -> String? {
        guard !trust.scopedAnchors.isEmpty, let ders = issuerSigned.issuerAuth.x5chain,
            let chain = try? ders.map({ (der) throws(CryptoError) in try Certificate.cached(der: der) })
        else { return nil }
        let others = trust.scopedAnchors.filter { !$0.docTypes.contains(docType) }
        let validation = CertificateChainValidator.validate(chain: chain, anchors: others.map(\.certificate), at: time)
        guard let anchor = validation.trustAnchor, let scoped = others.first(where: { $0.certificate == anchor })
        else { return nil }
        return "the IACA \(anchor.subject) is trusted for \(scoped.docTypes.sorted().joined(separator: ", ")) only "
            + "(\(scoped.source)), not for \(docType)"
    }
}

/// Key identifiers, issuer alternative names and CRL distribution points, as IACA and document
/// signer profiles (ISO 18013-5 Annex B) carry them.
extension Certificate {
    /// The subjectKeyIdentifier extension's bytes, if present.
    public var subjectKeyIdentifier: [UInt8]? {
        extensions.subjectKeyIdentifier
    }

    /// The keyIdentifier of the authorityKeyIdentifier extension, if present.
    public var authorityKeyIdentifier: [UInt8]? {
        extensions.authorityKeyIdentifier
    }

    /// The issuerAltName entries of the kinds the builder writes (DNS, URI, email), in order.
    public var issuerAlternativeNames: [CertificateBuilder.GeneralName] {
        extensions.issuerAlternativeNames
    }

    /// The full names (DNS, URI, email) of every cRLDistributionPoints entry, in order.
    public var crlDistributionPoints: [CertificateBuilder.GeneralName] {
        extensions.crlDistributionPoints
    }
}

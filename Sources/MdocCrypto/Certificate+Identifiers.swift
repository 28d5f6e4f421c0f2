internal import COpenSSL

/// Key identifiers, issuer alternative names and CRL distribution points, as IACA and document
/// signer profiles (ISO 18013-5 Annex B) carry them.
extension Certificate {
    /// The subjectKeyIdentifier extension's bytes, if present.
    public var subjectKeyIdentifier: [UInt8]? {
        defer { clearOpenSSLErrors() }
        return X509_get0_subject_key_id(x509).flatMap { CertificateBuilder.octets($0) }
    }

    /// The keyIdentifier of the authorityKeyIdentifier extension, if present.
    public var authorityKeyIdentifier: [UInt8]? {
        defer { clearOpenSSLErrors() }
        return X509_get0_authority_key_id(x509).flatMap { CertificateBuilder.octets($0) }
    }

    /// The issuerAltName entries of the kinds the builder writes (DNS, URI, email), in order.
    public var issuerAlternativeNames: [CertificateBuilder.GeneralName] {
        decodedExtension(NID_issuer_alt_name) { raw in
            let names = OpaquePointer(raw)
            defer { mdoc_GENERAL_NAMES_free(names) }
            return Self.generalNames(names)
        } ?? []
    }

    /// The full names (DNS, URI, email) of every cRLDistributionPoints entry, in order.
    public var crlDistributionPoints: [CertificateBuilder.GeneralName] {
        decodedExtension(NID_crl_distribution_points) { raw in
            let points = OpaquePointer(raw)
            defer { CRL_DIST_POINTS_free(points) }
            var result: [CertificateBuilder.GeneralName] = []
            for index in 0..<max(OPENSSL_sk_num(points), 0) {
                guard let point = OPENSSL_sk_value(points, index)?.assumingMemoryBound(to: DIST_POINT.self),
                    let name = point.pointee.distpoint, name.pointee.type == 0, let full = name.pointee.name.fullname
                else { continue }
                result += Self.generalNames(full)
            }
            return result
        } ?? []
    }

    private static func generalNames(_ names: OpaquePointer) -> [CertificateBuilder.GeneralName] {
        var result: [CertificateBuilder.GeneralName] = []
        for index in 0..<max(mdoc_sk_GENERAL_NAME_num(names), 0) {
            guard let name = mdoc_sk_GENERAL_NAME_value(names, index) else { continue }
            let type = name.pointee.type
            // dNSName, uniformResourceIdentifier and rfc822Name are all IA5String members.
            let string: UnsafeMutablePointer<ASN1_IA5STRING>?
            switch type {
            case GEN_DNS: string = name.pointee.d.dNSName
            case GEN_URI: string = name.pointee.d.uniformResourceIdentifier
            case GEN_EMAIL: string = name.pointee.d.rfc822Name
            default: string = nil
            }
            guard let string, let bytes = CertificateBuilder.octets(string) else { continue }
            let text = String(decoding: bytes, as: UTF8.self)
            switch type {
            case GEN_DNS: result.append(.dns(text))
            case GEN_URI: result.append(.uri(text))
            default: result.append(.email(text))
            }
        }
        return result
    }
}

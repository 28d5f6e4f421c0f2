internal import COpenSSL

/// The X.509 v3 extensions of one certificate, decoded from its OpenSSL `X509` once (see
/// ``Certificate/extensions``): the trust decisions of every session (the reader profile, the
/// document signer, VICAL and status list signer EKUs) read these fields instead of asking
/// OpenSSL to decode the extension again.
///
/// An extension that is absent, appears twice or does not decode reads as absent, as
/// `X509_get_ext_d2i` reports it.
final class CertificateExtensions: Sendable {
    /// basicConstraints cA = TRUE.
    let isCA: Bool
    /// basicConstraints pathLenConstraint.
    let pathLengthConstraint: Int?
    /// Whether a keyUsage extension is present (even one that does not decode).
    let hasKeyUsageExtension: Bool
    /// The keyUsage bits; empty without the extension.
    let keyUsage: KeyUsage
    /// The extendedKeyUsage purposes as dotted OIDs, in certificate order.
    let extendedKeyUsage: [String]
    /// The dNSName and uniformResourceIdentifier entries of subjectAltName, in order.
    let dnsSubjectAlternativeNames: [String]
    let uriSubjectAlternativeNames: [String]
    /// subjectKeyIdentifier and the keyIdentifier of authorityKeyIdentifier.
    let subjectKeyIdentifier: [UInt8]?
    let authorityKeyIdentifier: [UInt8]?
    /// issuerAltName and the full names of cRLDistributionPoints (DNS, URI, email), in order.
    let issuerAlternativeNames: [CertificateBuilder.GeneralName]
    let crlDistributionPoints: [CertificateBuilder.GeneralName]

    /// Decodes the extensions of `x509`, which is only read.
    init(decoding x509: OpaquePointer) {
        let constraints = Self.basicConstraints(x509)
        isCA = constraints?.isCA ?? false
        pathLengthConstraint = constraints?.pathLength
        hasKeyUsageExtension = X509_get_ext_by_NID(x509, NID_key_usage, -1) >= 0
        keyUsage = Self.keyUsage(x509)
        extendedKeyUsage = Self.extendedKeyUsage(x509)
        let alternativeNames = Self.generalNames(x509, NID_subject_alt_name)
        dnsSubjectAlternativeNames = alternativeNames.compactMap { if case .dns(let name) = $0 { name } else { nil } }
        uriSubjectAlternativeNames = alternativeNames.compactMap { if case .uri(let name) = $0 { name } else { nil } }
        subjectKeyIdentifier = X509_get0_subject_key_id(x509).flatMap { CertificateBuilder.octets($0) }
        authorityKeyIdentifier = X509_get0_authority_key_id(x509).flatMap { CertificateBuilder.octets($0) }
        clearOpenSSLErrors()
        issuerAlternativeNames = Self.generalNames(x509, NID_issuer_alt_name)
        crlDistributionPoints = Self.crlDistributionPoints(x509)
    }

    private static func basicConstraints(_ x509: OpaquePointer) -> (isCA: Bool, pathLength: Int?)? {
        decoded(x509, NID_basic_constraints) { raw in
            let constraints = raw.assumingMemoryBound(to: BASIC_CONSTRAINTS.self)
            defer { BASIC_CONSTRAINTS_free(constraints) }
            var pathLength: Int?
            if let length = constraints.pointee.pathlen {
                let value = ASN1_INTEGER_get(length)
                pathLength = value >= 0 ? Int(value) : nil
            }
            return (constraints.pointee.ca != 0, pathLength)
        }
    }

    private static func keyUsage(_ x509: OpaquePointer) -> KeyUsage {
        decoded(x509, NID_key_usage) { raw in
            let bits = raw.assumingMemoryBound(to: ASN1_BIT_STRING.self)
            defer { ASN1_BIT_STRING_free(bits) }
            var usage = KeyUsage()
            for bit in 0..<9 where ASN1_BIT_STRING_get_bit(bits, Int32(bit)) == 1 {
                usage.insert(KeyUsage(rawValue: 1 << bit))
            }
            return usage
        } ?? []
    }

    private static func extendedKeyUsage(_ x509: OpaquePointer) -> [String] {
        decoded(x509, NID_ext_key_usage) { raw in
            let usages = OpaquePointer(raw)
            defer { mdoc_EXTENDED_KEY_USAGE_free(usages) }
            return (0..<max(mdoc_sk_ASN1_OBJECT_num(usages), 0)).compactMap { index in
                dottedOID(mdoc_sk_ASN1_OBJECT_value(usages, index))
            }
        } ?? []
    }

    /// The names of a GENERAL_NAMES extension (subjectAltName, issuerAltName).
    private static func generalNames(_ x509: OpaquePointer, _ nid: Int32) -> [CertificateBuilder.GeneralName] {
        decoded(x509, nid) { raw -> [CertificateBuilder.GeneralName] in
            let names = OpaquePointer(raw)
            defer { mdoc_GENERAL_NAMES_free(names) }
            return generalNames(names)
        } ?? []
    }

    private static func crlDistributionPoints(_ x509: OpaquePointer) -> [CertificateBuilder.GeneralName] {
        decoded(x509, NID_crl_distribution_points) { raw in
            let points = OpaquePointer(raw)
            defer { CRL_DIST_POINTS_free(points) }
            var result: [CertificateBuilder.GeneralName] = []
            for index in 0..<max(OPENSSL_sk_num(points), 0) {
                guard let point = OPENSSL_sk_value(points, index)?.assumingMemoryBound(to: DIST_POINT.self),
                    let name = point.pointee.distpoint, name.pointee.type == 0, let full = name.pointee.name.fullname
                else { continue }
                result += generalNames(full)
            }
            return result
        } ?? []
    }

    /// `read` of the extension `nid` as OpenSSL decodes it (`X509_get_ext_d2i`; `read` frees
    /// it); nil when the certificate has no such extension, or it does not decode.
    private static func decoded<R>(_ x509: OpaquePointer, _ nid: Int32, _ read: (UnsafeMutableRawPointer) -> R) -> R? {
        guard let raw = X509_get_ext_d2i(x509, nid, nil, nil) else {
            clearOpenSSLErrors()
            return nil
        }
        return read(raw)
    }

    /// The DNS, URI and email entries of a GENERAL_NAMES, in order (other kinds skipped).
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

    private static func dottedOID(_ object: OpaquePointer?) -> String? {
        guard let object else { return nil }
        var buffer = [CChar](repeating: 0, count: 128)
        var length = OBJ_obj2txt(&buffer, Int32(buffer.count), object, 1)
        if length >= Int32(buffer.count) {
            buffer = [CChar](repeating: 0, count: Int(length) + 1)
            length = OBJ_obj2txt(&buffer, Int32(buffer.count), object, 1)
        }
        guard length > 0 else { return nil }
        return String(decoding: buffer.prefix(Int(length)).map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }
}

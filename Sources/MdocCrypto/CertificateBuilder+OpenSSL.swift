internal import COpenSSL
import FoundationEssentials

extension CertificateBuilder {
    /// Builds and signs the certificate. `issuer` nil means self-signed.
    func build(issuer: Certificate?, issuerKey: PrivateKey) throws(CertificateBuilderError) -> Certificate {
        try validate()
        guard let algorithm = issuerKey.curve.preferredSignatureAlgorithm else {
            throw .invalidIssuerKey("a \(issuerKey.curve.rawValue) key cannot sign")
        }
        guard let x509 = X509_new() else { throw .crypto(.fromOpenSSL("X509_new")) }
        do throws(CertificateBuilderError) {
            try fill(x509, issuer: issuer)
            // ECDSA with the curve's hash; EdDSA takes no digest.
            guard X509_sign(x509, issuerKey.pkey, algorithm.digest?.evpMD) > 0 else {
                throw .crypto(.fromOpenSSL("X509_sign(\(algorithm))"))
            }
            guard X509_verify(x509, issuerKey.pkey) == 1 else {
                throw .crypto(.fromOpenSSL("X509_verify (fresh signature)"))
            }
        } catch {
            X509_free(x509)
            throw error
        }
        do {
            return try Certificate(adopting: x509)  // frees x509 if it throws
        } catch {
            throw .crypto(error)
        }
    }

    /// Version, serial, names, validity, key and extensions.
    private func fill(_ x509: OpaquePointer, issuer: Certificate?) throws(CertificateBuilderError) {
        guard X509_set_version(x509, Int(X509_VERSION_3)) == 1 else { throw .crypto(.fromOpenSSL("X509_set_version")) }
        try setSerialNumber(x509)
        try setSubject(x509)
        let issuerName = issuer.map { X509_get_subject_name($0.x509) } ?? X509_get_subject_name(x509)
        guard X509_set_issuer_name(x509, issuerName) == 1 else {
            throw .crypto(.fromOpenSSL("X509_set_issuer_name"))
        }
        guard ASN1_TIME_set(X509_getm_notBefore(x509), Self.seconds(notBefore)) != nil,
            ASN1_TIME_set(X509_getm_notAfter(x509), Self.seconds(notAfter)) != nil
        else { throw .crypto(.fromOpenSSL("ASN1_TIME_set")) }
        guard X509_set_pubkey(x509, subjectPublicKey.pkey) == 1 else {
            throw .crypto(.fromOpenSSL("X509_set_pubkey"))
        }
        try addExtensions(x509, issuer: issuer)
    }

    private static func seconds(_ date: Date) -> time_t {
        time_t(date.timeIntervalSince1970.rounded(.down))
    }

    private func setSerialNumber(_ x509: OpaquePointer) throws(CertificateBuilderError) {
        guard let bn = BN_bin2bn(serialNumber, Int32(serialNumber.count), nil) else {
            throw .crypto(.fromOpenSSL("BN_bin2bn"))
        }
        defer { BN_free(bn) }
        guard BN_to_ASN1_INTEGER(bn, X509_get_serialNumber(x509)) != nil else {
            throw .crypto(.fromOpenSSL("BN_to_ASN1_INTEGER"))
        }
    }

    private func setSubject(_ x509: OpaquePointer) throws(CertificateBuilderError) {
        guard let name = X509_NAME_new() else { throw .crypto(.fromOpenSSL("X509_NAME_new")) }
        defer { X509_NAME_free(name) }
        for component in subject.components {
            let utf8 = Array(component.value.utf8)
            // MBSTRING_UTF8 input; OpenSSL picks PrintableString for C and UTF8String otherwise.
            guard
                X509_NAME_add_entry_by_NID(
                    name, component.attribute.nid, MBSTRING_UTF8, utf8, Int32(utf8.count), -1, 0) == 1
            else {
                throw .invalidField(
                    field: "subject \(component.attribute.rawValue)",
                    reason: "OpenSSL refused the value (\(drainOpenSSLErrors()))")
            }
        }
        guard X509_set_subject_name(x509, name) == 1 else { throw .crypto(.fromOpenSSL("X509_set_subject_name")) }
    }

    // MARK: - Extensions

    private func addExtensions(_ x509: OpaquePointer, issuer: Certificate?) throws(CertificateBuilderError) {
        if includeKeyIdentifiers {
            let subjectKeyID = try Self.publicKeyIdentifier(x509)
            try Self.addOctetString(x509, nid: NID_subject_key_identifier, subjectKeyID)
            // A self-signed root carries no authorityKeyIdentifier (RFC 5280 4.2.1.1 allows
            // leaving it out; the IACA of ISO 18013-5 Annex D has none).
            if let issuer {
                try Self.addAuthorityKeyIdentifier(x509, try Self.subjectKeyIdentifier(of: issuer.x509))
            }
        }
        if let basicConstraints { try Self.addBasicConstraints(x509, basicConstraints) }
        if let keyUsage { try Self.addKeyUsage(x509, keyUsage) }
        if !extendedKeyUsage.isEmpty {
            try Self.addExtendedKeyUsage(x509, extendedKeyUsage, critical: extendedKeyUsageIsCritical)
        }
        if !subjectAlternativeNames.isEmpty {
            try Self.addGeneralNames(x509, nid: NID_subject_alt_name, subjectAlternativeNames)
        }
        if !issuerAlternativeNames.isEmpty {
            try Self.addGeneralNames(x509, nid: NID_issuer_alt_name, issuerAlternativeNames)
        }
        if !crlDistributionPoints.isEmpty { try Self.addCRLDistributionPoints(x509, crlDistributionPoints) }
    }

    /// Encodes `value` (an OpenSSL structure of the extension's type) into the certificate.
    private static func add(
        _ x509: OpaquePointer, nid: Int32, _ value: UnsafeMutableRawPointer, critical: Bool, name: String
    ) throws(CertificateBuilderError) {
        guard X509_add1_ext_i2d(x509, nid, value, critical ? 1 : 0, UInt(X509V3_ADD_DEFAULT)) == 1 else {
            throw .crypto(.fromOpenSSL("X509_add1_ext_i2d(\(name))"))
        }
    }

    /// SHA-1 of the subjectPublicKey BIT STRING contents (RFC 5280 4.2.1.2, method 1).
    private static func publicKeyIdentifier(_ x509: OpaquePointer) throws(CertificateBuilderError) -> [UInt8] {
        var digest = [UInt8](repeating: 0, count: Int(EVP_MAX_MD_SIZE))
        var length: UInt32 = 0
        guard X509_pubkey_digest(x509, EVP_sha1(), &digest, &length) == 1 else {
            throw .crypto(.fromOpenSSL("X509_pubkey_digest"))
        }
        return Array(digest.prefix(Int(length)))
    }

    /// The issuer's subjectKeyIdentifier, or (when it has none) the identifier computed from its key.
    private static func subjectKeyIdentifier(of issuer: OpaquePointer) throws(CertificateBuilderError) -> [UInt8] {
        if let existing = X509_get0_subject_key_id(issuer), let bytes = octets(existing) {
            return bytes
        }
        clearOpenSSLErrors()
        return try publicKeyIdentifier(issuer)
    }

    static func octets(_ string: UnsafePointer<ASN1_STRING>) -> [UInt8]? {
        guard let data = ASN1_STRING_get0_data(string) else { return nil }
        return Array(UnsafeBufferPointer(start: data, count: Int(ASN1_STRING_length(string))))
    }

    private static func newOctetString(_ bytes: [UInt8]) throws(CertificateBuilderError)
        -> UnsafeMutablePointer<ASN1_OCTET_STRING>
    {
        guard let string = ASN1_OCTET_STRING_new() else { throw .crypto(.fromOpenSSL("ASN1_OCTET_STRING_new")) }
        guard ASN1_OCTET_STRING_set(string, bytes, Int32(bytes.count)) == 1 else {
            ASN1_OCTET_STRING_free(string)
            throw .crypto(.fromOpenSSL("ASN1_OCTET_STRING_set"))
        }
        return string
    }

    private static func addOctetString(_ x509: OpaquePointer, nid: Int32, _ bytes: [UInt8])
        throws(CertificateBuilderError)
    {
        let string = try newOctetString(bytes)
        defer { ASN1_OCTET_STRING_free(string) }
        try add(x509, nid: nid, string, critical: false, name: "subjectKeyIdentifier")
    }

    private static func addAuthorityKeyIdentifier(_ x509: OpaquePointer, _ keyID: [UInt8])
        throws(CertificateBuilderError)
    {
        guard let identifier = AUTHORITY_KEYID_new() else { throw .crypto(.fromOpenSSL("AUTHORITY_KEYID_new")) }
        defer { AUTHORITY_KEYID_free(identifier) }
        identifier.pointee.keyid = try newOctetString(keyID)  // freed with the structure
        try add(x509, nid: NID_authority_key_identifier, identifier, critical: false, name: "authorityKeyIdentifier")
    }

    private static func addBasicConstraints(_ x509: OpaquePointer, _ constraints: BasicConstraints)
        throws(CertificateBuilderError)
    {
        guard let value = BASIC_CONSTRAINTS_new() else { throw .crypto(.fromOpenSSL("BASIC_CONSTRAINTS_new")) }
        defer { BASIC_CONSTRAINTS_free(value) }
        if case .certificateAuthority(let pathLength) = constraints {
            value.pointee.ca = 0xff  // DER TRUE
            if let pathLength {
                guard let integer = ASN1_INTEGER_new() else { throw .crypto(.fromOpenSSL("ASN1_INTEGER_new")) }
                value.pointee.pathlen = integer  // freed with the structure
                guard ASN1_INTEGER_set(integer, pathLength) == 1 else {
                    throw .crypto(.fromOpenSSL("ASN1_INTEGER_set"))
                }
            }
        }
        try add(x509, nid: NID_basic_constraints, value, critical: true, name: "basicConstraints")
    }

    private static func addKeyUsage(_ x509: OpaquePointer, _ usage: KeyUsage) throws(CertificateBuilderError) {
        guard let bits = ASN1_BIT_STRING_new() else { throw .crypto(.fromOpenSSL("ASN1_BIT_STRING_new")) }
        defer { ASN1_BIT_STRING_free(bits) }
        for bit in 0..<9 where usage.contains(KeyUsage(rawValue: 1 << bit)) {
            guard ASN1_BIT_STRING_set_bit(bits, Int32(bit), 1) == 1 else {
                throw .crypto(.fromOpenSSL("ASN1_BIT_STRING_set_bit"))
            }
        }
        try add(x509, nid: NID_key_usage, bits, critical: true, name: "keyUsage")
    }

    private static func addExtendedKeyUsage(_ x509: OpaquePointer, _ oids: [String], critical: Bool)
        throws(CertificateBuilderError)
    {
        guard let usages = EXTENDED_KEY_USAGE_new() else { throw .crypto(.fromOpenSSL("EXTENDED_KEY_USAGE_new")) }
        defer { mdoc_EXTENDED_KEY_USAGE_free(usages) }  // frees the objects pushed too
        for oid in oids {
            // no_name = 1: the text is read as a dotted OID, so unregistered arcs work.
            guard let object = OBJ_txt2obj(oid, 1) else {
                throw .invalidField(field: "extendedKeyUsage", reason: "OpenSSL cannot encode \(oid)")
            }
            guard OPENSSL_sk_push(usages, UnsafeRawPointer(object)) > 0 else {
                ASN1_OBJECT_free(object)
                throw .crypto(.fromOpenSSL("sk_ASN1_OBJECT_push"))
            }
        }
        try add(x509, nid: NID_ext_key_usage, UnsafeMutableRawPointer(usages), critical: critical, name: "extKeyUsage")
    }

    /// A GENERAL_NAMES stack holding `names`; the caller frees it with `mdoc_GENERAL_NAMES_free`.
    private static func newGeneralNames(_ names: [GeneralName]) throws(CertificateBuilderError) -> OpaquePointer {
        guard let stack = GENERAL_NAMES_new() else { throw .crypto(.fromOpenSSL("GENERAL_NAMES_new")) }
        for name in names {
            let (type, text): (Int32, String)
            switch name {
            case .dns(let value): (type, text) = (GEN_DNS, value)
            case .uri(let value): (type, text) = (GEN_URI, value)
            case .email(let value): (type, text) = (GEN_EMAIL, value)
            }
            let bytes = Array(text.utf8)
            guard let general = GENERAL_NAME_new(), let string = ASN1_IA5STRING_new() else {
                mdoc_GENERAL_NAMES_free(stack)
                throw .crypto(.fromOpenSSL("GENERAL_NAME_new"))
            }
            guard ASN1_STRING_set(string, bytes, Int32(bytes.count)) == 1 else {
                ASN1_IA5STRING_free(string)
                GENERAL_NAME_free(general)
                mdoc_GENERAL_NAMES_free(stack)
                throw .crypto(.fromOpenSSL("ASN1_STRING_set"))
            }
            GENERAL_NAME_set0_value(general, type, UnsafeMutableRawPointer(string))  // takes the string
            guard OPENSSL_sk_push(stack, UnsafeRawPointer(general)) > 0 else {
                GENERAL_NAME_free(general)
                mdoc_GENERAL_NAMES_free(stack)
                throw .crypto(.fromOpenSSL("sk_GENERAL_NAME_push"))
            }
        }
        return stack
    }

    private static func addGeneralNames(_ x509: OpaquePointer, nid: Int32, _ names: [GeneralName])
        throws(CertificateBuilderError)
    {
        let stack = try newGeneralNames(names)
        defer { mdoc_GENERAL_NAMES_free(stack) }
        let name = nid == NID_subject_alt_name ? "subjectAltName" : "issuerAltName"
        try add(x509, nid: nid, UnsafeMutableRawPointer(stack), critical: false, name: name)
    }

    private static func addCRLDistributionPoints(_ x509: OpaquePointer, _ names: [GeneralName])
        throws(CertificateBuilderError)
    {
        guard let points = CRL_DIST_POINTS_new() else { throw .crypto(.fromOpenSSL("CRL_DIST_POINTS_new")) }
        defer { CRL_DIST_POINTS_free(points) }  // frees the points pushed too
        for name in names {
            guard let point = DIST_POINT_new() else { throw .crypto(.fromOpenSSL("DIST_POINT_new")) }
            guard OPENSSL_sk_push(points, UnsafeRawPointer(point)) > 0 else {
                DIST_POINT_free(point)
                throw .crypto(.fromOpenSSL("sk_DIST_POINT_push"))
            }
            guard let pointName = DIST_POINT_NAME_new() else { throw .crypto(.fromOpenSSL("DIST_POINT_NAME_new")) }
            point.pointee.distpoint = pointName  // freed with the point
            pointName.pointee.type = 0  // fullName
            pointName.pointee.name.fullname = try newGeneralNames([name])  // freed with the name
        }
        try add(
            x509, nid: NID_crl_distribution_points, UnsafeMutableRawPointer(points), critical: false,
            name: "cRLDistributionPoints")
    }
}

extension DistinguishedName.Attribute {
    /// OpenSSL's NID for the attribute type.
    var nid: Int32 {
        switch self {
        case .country: return NID_countryName
        case .stateOrProvince: return NID_stateOrProvinceName
        case .locality: return NID_localityName
        case .organization: return NID_organizationName
        case .organizationalUnit: return NID_organizationalUnitName
        case .commonName: return NID_commonName
        case .serialNumber: return NID_serialNumber
        }
    }
}

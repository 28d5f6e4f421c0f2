internal import COpenSSL

/// The X.509 v3 extensions that mdoc trust decisions look at.
extension Certificate {
    /// Whether the basicConstraints extension says cA = TRUE.
    public var isCA: Bool {
        basicConstraints?.isCA ?? false
    }

    /// The basicConstraints pathLenConstraint, if present.
    public var pathLengthConstraint: Int? {
        basicConstraints?.pathLength
    }

    /// Whether the certificate has a keyUsage extension.
    public var hasKeyUsageExtension: Bool {
        X509_get_ext_by_NID(x509, NID_key_usage, -1) >= 0
    }

    /// The keyUsage bits; empty if the extension is absent (see ``hasKeyUsageExtension``).
    public var keyUsage: KeyUsage {
        decodedExtension(NID_key_usage) { raw in
            let bits = raw.assumingMemoryBound(to: ASN1_BIT_STRING.self)
            defer { ASN1_BIT_STRING_free(bits) }
            var usage = KeyUsage()
            for bit in 0..<9 where ASN1_BIT_STRING_get_bit(bits, Int32(bit)) == 1 {
                usage.insert(KeyUsage(rawValue: 1 << bit))
            }
            return usage
        } ?? []
    }

    /// The extendedKeyUsage purposes as dotted OIDs (e.g. "1.0.18013.5.1.6" for mdoc reader
    /// authentication), in certificate order; empty if the extension is absent.
    public var extendedKeyUsage: [String] {
        decodedExtension(NID_ext_key_usage) { raw in
            let usages = OpaquePointer(raw)
            defer { mdoc_EXTENDED_KEY_USAGE_free(usages) }
            return (0..<max(mdoc_sk_ASN1_OBJECT_num(usages), 0)).compactMap { index in
                Self.dottedOID(mdoc_sk_ASN1_OBJECT_value(usages, index))
            }
        } ?? []
    }

    /// The dNSName entries of subjectAltName.
    public var dnsSubjectAlternativeNames: [String] {
        subjectAlternativeNames(ofType: GEN_DNS)
    }

    /// The uniformResourceIdentifier entries of subjectAltName.
    public var uriSubjectAlternativeNames: [String] {
        subjectAlternativeNames(ofType: GEN_URI)
    }

    private var basicConstraints: (isCA: Bool, pathLength: Int?)? {
        decodedExtension(NID_basic_constraints) { raw in
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

    private func subjectAlternativeNames(ofType type: Int32) -> [String] {
        decodedExtension(NID_subject_alt_name) { raw in
            let names = OpaquePointer(raw)
            defer { mdoc_GENERAL_NAMES_free(names) }
            var result: [String] = []
            for index in 0..<max(mdoc_sk_GENERAL_NAME_num(names), 0) {
                guard let name = mdoc_sk_GENERAL_NAME_value(names, index), name.pointee.type == type else { continue }
                // dNSName and uniformResourceIdentifier are both IA5String members of the union.
                guard let string = type == GEN_DNS ? name.pointee.d.dNSName : name.pointee.d.uniformResourceIdentifier,
                    let data = ASN1_STRING_get0_data(string)
                else { continue }
                let bytes = UnsafeBufferPointer(start: data, count: Int(ASN1_STRING_length(string)))
                result.append(String(decoding: bytes, as: UTF8.self))
            }
            return result
        } ?? []
    }

    /// `read` of the extension `nid` as OpenSSL decodes it (`X509_get_ext_d2i`; `read` frees
    /// it); nil when the certificate has no such extension, or it does not decode.
    func decodedExtension<R>(_ nid: Int32, _ read: (UnsafeMutableRawPointer) -> R) -> R? {
        guard let raw = X509_get_ext_d2i(x509, nid, nil, nil) else {
            clearOpenSSLErrors()
            return nil
        }
        return read(raw)
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

internal import COpenSSL
import Synchronization

/// What is the same for every public key on one curve, made once per curve and process: an
/// EC key holding only the group (duplicated to make each public key, so the group is not
/// built again for every key), and the DER SubjectPublicKeyInfo prefix (everything before
/// the point or raw key, which has a fixed length on every supported curve).
///
/// OpenSSL 3.0's generic paths (`EVP_PKEY_fromdata` by group name, `d2i_PUBKEY` through
/// its decoders, `i2d_PUBKEY` through its encoders) cost several times an ECDSA signature;
/// these templates keep them off the per-key path.
final class CurveTemplate: @unchecked Sendable {
    let curve: Curve
    /// EC2: a key with the group's parameters and no point. nil for OKP curves.
    let parameters: OpaquePointer?
    /// The DER SubjectPublicKeyInfo without its last ``publicKeySize`` bytes.
    let subjectPublicKeyInfoPrefix: [UInt8]

    /// The AlgorithmIdentifier of the prefix (the same bytes start a PKCS#8 PrivateKeyInfo's
    /// key algorithm).
    var algorithmIdentifier: ArraySlice<UInt8> {
        let prefix = subjectPublicKeyInfoPrefix
        let header = prefix.count > 1 && prefix[1] & 0x80 != 0 ? 2 + Int(prefix[1] & 0x7F) : 2
        var cursor = DERCursor(prefix, min(header, prefix.count)..<prefix.count)
        return cursor.next(tag: 0x30).map { prefix[$0.whole] } ?? []
    }

    /// EC2: the uncompressed point (`04 || x || y`); OKP: the raw key.
    var publicKeySize: Int { curve.isOKP ? curve.coordinateSize : 1 + 2 * curve.coordinateSize }

    private init(curve: Curve, parameters: OpaquePointer?, prefix: [UInt8]) {
        self.curve = curve
        self.parameters = parameters
        self.subjectPublicKeyInfoPrefix = prefix
    }

    deinit {
        EVP_PKEY_free(parameters)
    }

    private static let made = Mutex<[Curve: CurveTemplate]>([:])

    /// The template of `curve`, made on first use.
    static func of(_ curve: Curve) throws(CryptoError) -> CurveTemplate {
        try made.withLock { (templates) throws(CryptoError) -> CurveTemplate in
            if let template = templates[curve] { return template }
            let template = try make(curve)
            templates[curve] = template
            return template
        }
    }

    /// The curve whose SubjectPublicKeyInfo prefix `der` has, with the key bytes after it;
    /// nil when `der` is not the plain named-curve form we write (OpenSSL's decoder then
    /// reads it).
    static func split(subjectPublicKeyInfo der: [UInt8]) -> (Curve, key: ArraySlice<UInt8>)? {
        for curve in Curve.allCases {
            guard let template = try? of(curve),
                der.count == template.subjectPublicKeyInfoPrefix.count + template.publicKeySize,
                der.starts(with: template.subjectPublicKeyInfoPrefix)
            else { continue }
            return (curve, der[template.subjectPublicKeyInfoPrefix.count...])
        }
        return nil
    }

    /// One key generated on `curve` with OpenSSL's generic calls, once: its encoding gives the
    /// prefix, its group the parameters.
    private static func make(_ curve: Curve) throws(CryptoError) -> CurveTemplate {
        guard let context = EVP_PKEY_CTX_new_from_name(nil, curve.opensslKeyType, nil) else {
            throw .fromOpenSSL("EVP_PKEY_CTX_new_from_name(\(curve.opensslKeyType))")
        }
        defer { EVP_PKEY_CTX_free(context) }
        guard EVP_PKEY_keygen_init(context) == 1 else { throw .fromOpenSSL("EVP_PKEY_keygen_init") }
        if let group = curve.opensslGroupName, EVP_PKEY_CTX_set_group_name(context, group) != 1 {
            throw .fromOpenSSL("EVP_PKEY_CTX_set_group_name(\(group))")
        }
        var sample: OpaquePointer?
        guard EVP_PKEY_generate(context, &sample) == 1, let sample else {
            EVP_PKEY_free(sample)
            throw .fromOpenSSL("EVP_PKEY_generate(\(curve.rawValue))")
        }
        defer { EVP_PKEY_free(sample) }
        // Uncompressed points in what we encode, whatever OpenSSL's default.
        if !curve.isOKP, EVP_PKEY_set_utf8_string_param(sample, "point-format", "uncompressed") != 1 {
            throw .fromOpenSSL("EVP_PKEY_set_utf8_string_param(point-format)")
        }
        let der = try EVPKeyCoding.subjectPublicKeyInfo(sample)
        let keySize = curve.isOKP ? curve.coordinateSize : 1 + 2 * curve.coordinateSize
        guard der.count > keySize else { throw .fromOpenSSL("i2d_PUBKEY (\(curve.rawValue))") }
        var parameters: OpaquePointer?
        if let group = curve.opensslGroupName {
            parameters = EVPKeyCoding.fromData(keyType: "EC", selection: mdoc_EVP_PKEY_KEY_PARAMETERS()) { params in
                params.addUTF8("group", group)
            }
            guard parameters != nil else { throw .fromOpenSSL("EVP_PKEY_fromdata(\(group) parameters)") }
        }
        return CurveTemplate(curve: curve, parameters: parameters, prefix: Array(der.dropLast(keySize)))
    }

    /// A public-only EC2 key with `point` (`04 || x || y`) on this curve. OpenSSL checks the
    /// point is on the curve as it sets it; every supported EC2 curve has cofactor 1, so that
    /// also puts it in the prime-order subgroup. nil when it is not a point of the curve.
    func ecPublicKey(point: [UInt8]) -> OpaquePointer? {
        guard let parameters, let pkey = EVP_PKEY_dup(parameters) else {
            clearOpenSSLErrors()
            return nil
        }
        guard EVP_PKEY_set1_encoded_public_key(pkey, point, point.count) == 1 else {
            EVP_PKEY_free(pkey)
            clearOpenSSLErrors()
            return nil
        }
        return pkey
    }
}

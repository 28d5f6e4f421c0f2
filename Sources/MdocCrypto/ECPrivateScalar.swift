internal import COpenSSL

/// Building an EC key pair from a raw private scalar.
enum ECPrivateScalar {
    /// An `EVP_PKEY` holding d and the public point d·G, for an EC2 curve.
    static func makeKey(curve: Curve, scalar: [UInt8]) throws(CryptoError) -> OpaquePointer {
        guard let groupName = curve.opensslGroupName, let nid = curve.opensslGroupNID else {
            throw .unsupportedCurve("\(curve.rawValue) is not an EC2 curve")
        }
        let size = curve.coordinateSize
        guard !scalar.isEmpty, scalar.count <= size else {
            throw .invalidLength("\(curve.rawValue) private scalars are \(size) bytes, not \(scalar.count)")
        }
        guard let group = EC_GROUP_new_by_curve_name(nid) else { throw .fromOpenSSL("EC_GROUP_new_by_curve_name") }
        defer { EC_GROUP_free(group) }
        guard let bnContext = BN_CTX_secure_new() else { throw .fromOpenSSL("BN_CTX_secure_new") }
        defer { BN_CTX_free(bnContext) }
        guard let d = BN_secure_new() else { throw .fromOpenSSL("BN_secure_new") }
        defer { BN_clear_free(d) }
        guard BN_bin2bn(scalar, Int32(scalar.count), d) != nil else { throw .fromOpenSSL("BN_bin2bn") }
        guard BN_is_zero(d) == 0, BN_cmp(d, EC_GROUP_get0_order(group)) < 0 else {
            throw .invalidKey("the private scalar is not in [1, n-1] for \(curve.rawValue)")
        }

        guard let point = EC_POINT_new(group) else { throw .fromOpenSSL("EC_POINT_new") }
        defer { EC_POINT_clear_free(point) }
        guard EC_POINT_mul(group, point, d, nil, nil, bnContext) == 1 else { throw .fromOpenSSL("EC_POINT_mul") }
        guard EC_POINT_is_on_curve(group, point, bnContext) == 1 else {
            clearOpenSSLErrors()
            throw .invalidKey("the derived public point is not on curve \(curve.rawValue)")
        }
        var encodedPoint = [UInt8](repeating: 0, count: 1 + 2 * size)
        guard
            EC_POINT_point2oct(
                group, point, POINT_CONVERSION_UNCOMPRESSED, &encodedPoint, encodedPoint.count, bnContext)
                == encodedPoint.count
        else { throw .fromOpenSSL("EC_POINT_point2oct") }

        // OSSL_PARAM integers are native-endian.
        var nativeScalar = [UInt8](repeating: 0, count: size)
        defer { OPENSSL_cleanse(&nativeScalar, nativeScalar.count) }
        guard BN_bn2nativepad(d, &nativeScalar, Int32(size)) == Int32(size) else {
            throw .fromOpenSSL("BN_bn2nativepad")
        }
        let imported = encodedPoint.withUnsafeBytes { pub in
            nativeScalar.withUnsafeBytes { priv in
                EVPKeyCoding.fromData(keyType: "EC", selection: mdoc_EVP_PKEY_KEYPAIR()) { params in
                    params.addUTF8("group", groupName)
                    params.addOctets("pub", pub)
                    params.addUnsignedInteger("priv", nativeEndian: priv)
                }
            }
        }
        guard let pkey = imported else { throw .invalidKey("OpenSSL rejected the \(curve.rawValue) key pair") }
        return pkey
    }
}

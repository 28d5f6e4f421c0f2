internal import COpenSSL

/// Conversions between OpenSSL `EVP_PKEY` objects and bytes, shared by the key classes.
enum EVPKeyCoding {
    /// A key built by `EVP_PKEY_fromdata` from parameters added by `build`. Octet buffers that
    /// `build` borrows must stay alive until this returns. `nil` (with the error queue cleared)
    /// if OpenSSL rejects the parameters. With `template` (a key of the same type), its key
    /// manager is used instead of one fetched by name.
    static func fromData(
        keyType: String, selection: Int32, template: OpaquePointer? = nil, build: (OSSLParamList) -> Void
    ) -> OpaquePointer? {
        let made =
            template.map { EVP_PKEY_CTX_new_from_pkey(nil, $0, nil) } ?? EVP_PKEY_CTX_new_from_name(nil, keyType, nil)
        guard let context = made else {
            clearOpenSSLErrors()
            return nil
        }
        defer { EVP_PKEY_CTX_free(context) }
        guard EVP_PKEY_fromdata_init(context) == 1 else {
            clearOpenSSLErrors()
            return nil
        }
        let params = OSSLParamList()
        build(params)
        var pkey: OpaquePointer?
        let ok = params.withParams { EVP_PKEY_fromdata(context, &pkey, selection, $0) }
        guard ok == 1, let pkey else {
            EVP_PKEY_free(pkey)
            clearOpenSSLErrors()
            return nil
        }
        return pkey
    }

    /// Runs OpenSSL's private/public pairwise consistency check. Key types whose check OpenSSL
    /// does not implement (result -2) pass.
    static func keyPairIsConsistent(_ pkey: OpaquePointer) -> Bool {
        guard let context = EVP_PKEY_CTX_new_from_pkey(nil, pkey, nil) else {
            clearOpenSSLErrors()
            return false
        }
        defer { EVP_PKEY_CTX_free(context) }
        let result = EVP_PKEY_pairwise_check(context)
        clearOpenSSLErrors()
        return result == 1 || result == -2
    }

    /// The DER SubjectPublicKeyInfo of a key (its public part if it is a private key).
    static func subjectPublicKeyInfo(_ pkey: OpaquePointer) throws(CryptoError) -> [UInt8] {
        guard let der = OpenSSLDER.encode({ i2d_PUBKEY(pkey, $0) }) else { throw .fromOpenSSL("i2d_PUBKEY") }
        return der
    }

    /// Parses a DER SubjectPublicKeyInfo, requiring that it spans all of `der`.
    static func parseSubjectPublicKeyInfo(_ der: [UInt8]) throws(CryptoError) -> OpaquePointer {
        let parsed = der.withUnsafeBufferPointer { buffer -> (OpaquePointer?, Int) in
            var cursor = buffer.baseAddress
            let pkey = d2i_PUBKEY(nil, &cursor, buffer.count)
            let consumed = pkey == nil ? 0 : cursor! - buffer.baseAddress!
            return (pkey, consumed)
        }
        guard let pkey = parsed.0 else {
            throw .invalidKey("not a DER SubjectPublicKeyInfo (\(drainOpenSSLErrors()))")
        }
        guard parsed.1 == der.count else {
            EVP_PKEY_free(pkey)
            throw .invalidKey("\(der.count - parsed.1) bytes follow the SubjectPublicKeyInfo")
        }
        return pkey
    }

    /// A big-endian unsigned integer parameter of a key, left-padded to `size` bytes.
    static func unsignedParameter(_ name: String, of pkey: OpaquePointer, size: Int) throws(CryptoError) -> [UInt8] {
        var bn: OpaquePointer?
        guard EVP_PKEY_get_bn_param(pkey, name, &bn) == 1, let bn else {
            throw .fromOpenSSL("EVP_PKEY_get_bn_param(\(name))")
        }
        defer { BN_free(bn) }
        var bytes = [UInt8](repeating: 0, count: size)
        guard BN_bn2binpad(bn, &bytes, Int32(size)) == Int32(size) else {
            throw .invalidKey("key parameter \(name) is longer than \(size) bytes")
        }
        return bytes
    }
}

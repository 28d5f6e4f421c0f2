internal import COpenSSL

/// Reading and writing private keys. Every output here is key material: callers own it.
extension PrivateKey {
    /// A key from PEM: PKCS#8 "BEGIN PRIVATE KEY" or traditional "BEGIN EC PRIVATE KEY"; the
    /// curve is detected. Encrypted PEM is refused (no passphrase prompt).
    ///
    /// - Throws: ``CryptoError/invalidKey(_:)`` if no unencrypted private key is found or its
    ///   public part does not match, ``CryptoError/unsupportedCurve(_:)`` for other key types.
    public convenience init(pem: String) throws(CryptoError) {
        var text = Array(pem.utf8)
        defer { OPENSSL_cleanse(&text, text.count) }
        let parsed = MemoryBIO.reading(text) { bio in
            PEM_read_bio_PrivateKey(bio, nil, { _, _, _, _ in -1 }, nil)  // never ask for a passphrase
        }
        guard let pkey = parsed ?? nil else {
            clearOpenSSLErrors()  // the queue may quote parts of the input; say nothing more
            throw .invalidKey("no unencrypted PEM private key found")
        }
        try self.init(adopting: pkey, checkPair: true)
    }

    /// A key from a DER PKCS#8 PrivateKeyInfo (a traditional DER EC key is accepted too).
    public convenience init(pkcs8DER der: [UInt8]) throws(CryptoError) {
        let parsed = der.withUnsafeBufferPointer { buffer -> (OpaquePointer?, Int) in
            var cursor = buffer.baseAddress
            let pkey = d2i_AutoPrivateKey(nil, &cursor, buffer.count)
            return (pkey, pkey == nil ? 0 : cursor! - buffer.baseAddress!)
        }
        guard let pkey = parsed.0 else {
            clearOpenSSLErrors()
            throw .invalidKey("not a DER PKCS#8 private key")
        }
        guard parsed.1 == der.count else {
            EVP_PKEY_free(pkey)
            throw .invalidKey("\(der.count - parsed.1) bytes follow the private key")
        }
        try self.init(adopting: pkey, checkPair: true)
    }

    /// The key as PKCS#8 PEM ("BEGIN PRIVATE KEY"), unencrypted. The string is key material that
    /// cannot be wiped from memory; store it protected.
    public func pkcs8PEM() throws(CryptoError) -> String {
        let written = MemoryBIO.collecting(secure: true) { bio in
            PEM_write_bio_PKCS8PrivateKey(bio, pkey, nil, nil, 0, nil, nil) == 1
        }
        guard var bytes = written else { throw .fromOpenSSL("PEM_write_bio_PKCS8PrivateKey") }
        defer { OPENSSL_cleanse(&bytes, bytes.count) }
        return String(decoding: bytes, as: UTF8.self)
    }

    /// The key as DER PKCS#8 PrivateKeyInfo, unencrypted. The caller owns (and should clear)
    /// the returned array.
    public func pkcs8DER() throws(CryptoError) -> [UInt8] {
        guard let info = EVP_PKEY2PKCS8(pkey) else { throw .fromOpenSSL("EVP_PKEY2PKCS8") }
        defer { PKCS8_PRIV_KEY_INFO_free(info) }
        guard let der = OpenSSLDER.encode({ i2d_PKCS8_PRIV_KEY_INFO(info, $0) }) else {
            throw .fromOpenSSL("i2d_PKCS8_PRIV_KEY_INFO")
        }
        return der
    }

    /// The raw private key: EC2 the big-endian scalar d (``Curve/coordinateSize`` bytes), OKP
    /// the raw private key. The inverse of ``init(curve:rawPrivateKey:)``.
    public func rawPrivateKey() throws(CryptoError) -> SecretBytes {
        if curve.isOKP {
            return try SecretBytes(count: curve.coordinateSize) { (buffer) throws(CryptoError) in
                var length = buffer.count
                let base = buffer.baseAddress!.assumingMemoryBound(to: UInt8.self)
                guard EVP_PKEY_get_raw_private_key(pkey, base, &length) == 1, length == buffer.count else {
                    throw .fromOpenSSL("EVP_PKEY_get_raw_private_key")
                }
            }
        }
        var d: OpaquePointer?
        guard EVP_PKEY_get_bn_param(pkey, "priv", &d) == 1, let d else {
            throw .fromOpenSSL("EVP_PKEY_get_bn_param(priv)")
        }
        defer { BN_clear_free(d) }
        return try SecretBytes(count: curve.coordinateSize) { (buffer) throws(CryptoError) in
            let base = buffer.baseAddress!.assumingMemoryBound(to: UInt8.self)
            guard BN_bn2binpad(d, base, Int32(buffer.count)) == Int32(buffer.count) else {
                throw .invalidKey("the private scalar is longer than \(buffer.count) bytes")
            }
        }
    }
}

internal import COpenSSL

/// Keys that live in an ``OpenSSLProvider`` (a TPM): made there, stored as the provider's own
/// PEM (for tpm2 the "TSS2 PRIVATE KEY" blob, which only that TPM can load), used in place.
extension PrivateKey {
    /// A new key on `curve`, generated inside `provider`.
    ///
    /// - Parameter authValue: the key's auth value (the TPM checks it on every use); nil for none.
    /// - Throws: ``CryptoError/unsupportedCurve(_:)`` for a curve the provider cannot make,
    ///   ``CryptoError/openssl(operation:reason:)`` when the provider fails.
    public static func generate(_ curve: Curve, in provider: OpenSSLProvider, authValue: String? = nil)
        throws(CryptoError) -> PrivateKey
    {
        guard let group = curve.opensslGroupName else {
            throw .unsupportedCurve("the \(provider.name) provider makes EC keys only, not \(curve.rawValue)")
        }
        guard
            let context = EVP_PKEY_CTX_new_from_name(
                provider.libraryContext, "EC", "provider=\(provider.name)")
        else {
            throw .unsupportedCurve("the \(provider.name) provider cannot make EC keys (\(drainOpenSSLErrors()))")
        }
        defer { EVP_PKEY_CTX_free(context) }
        guard EVP_PKEY_keygen_init(context) == 1 else { throw .fromOpenSSL("EVP_PKEY_keygen_init(\(provider.name))") }
        let params = OSSLParamList()
        params.addUTF8("group", group)
        if let authValue { params.addUTF8("user-auth", authValue) }
        guard params.withParams({ EVP_PKEY_CTX_set_params(context, $0) }) == 1 else {
            throw .unsupportedCurve("the \(provider.name) provider refused \(curve.rawValue) (\(drainOpenSSLErrors()))")
        }
        var pkey: OpaquePointer?
        guard EVP_PKEY_generate(context, &pkey) == 1, let pkey else {
            EVP_PKEY_free(pkey)
            throw .fromOpenSSL("EVP_PKEY_generate(\(provider.name), \(curve.rawValue))")
        }
        return try PrivateKey(adopting: pkey, checkPair: false, provider: provider)
    }

    /// A key from the provider's PEM (for tpm2: "BEGIN TSS2 PRIVATE KEY"), loaded into
    /// `provider`.
    ///
    /// - Parameter authValue: given to the provider when the key has an auth value.
    /// - Throws: ``CryptoError/invalidKey(_:)`` when the provider cannot load the blob (another
    ///   TPM's key, a damaged blob).
    public convenience init(providerPEM pem: String, provider: OpenSSLProvider, authValue: String? = nil)
        throws(CryptoError)
    {
        let secret = Array((authValue ?? "").utf8)
        let parsed = secret.withUnsafeBufferPointer { auth -> OpaquePointer? in
            var passphrase = PassphraseBuffer(bytes: auth.baseAddress, count: auth.count, given: authValue != nil)
            return withUnsafeMutablePointer(to: &passphrase) { userData in
                MemoryBIO.reading(Array(pem.utf8)) { bio in
                    PEM_read_bio_PrivateKey_ex(
                        bio, nil,
                        { buffer, size, _, userData in
                            guard let buffer, let userData else { return -1 }
                            let passphrase = userData.assumingMemoryBound(to: PassphraseBuffer.self).pointee
                            guard passphrase.given, passphrase.count <= Int(size), let bytes = passphrase.bytes
                            else { return passphrase.given && passphrase.count == 0 ? 0 : -1 }
                            for i in 0..<passphrase.count { buffer[i] = CChar(bitPattern: bytes[i]) }
                            return Int32(passphrase.count)
                        }, userData, provider.libraryContext, provider.propertyQuery)
                } ?? nil
            }
        }
        guard let pkey = parsed else {
            throw .invalidKey("the \(provider.name) provider cannot load this key (\(drainOpenSSLErrors()))")
        }
        try self.init(adopting: pkey, checkPair: false, provider: provider)
    }

    /// The provider's PEM of a provider-held key (for tpm2 the TSS2 PRIVATE KEY blob: the key
    /// wrapped by the TPM, usable only by it).
    ///
    /// - Throws: ``CryptoError/invalidKey(_:)`` for a key that is not provider-held (its PEM
    ///   would be plaintext).
    public func providerPEM() throws(CryptoError) -> String {
        guard let provider else { throw .invalidKey("only a provider-held key has a provider PEM") }
        let written = MemoryBIO.collecting { bio in
            PEM_write_bio_PrivateKey_ex(
                bio, pkey, nil, nil, 0, nil, nil, provider.libraryContext, provider.propertyQuery)
                == 1
        }
        guard let written else { throw .fromOpenSSL("PEM_write_bio_PrivateKey_ex(\(provider.name))") }
        return String(decoding: written, as: UTF8.self)
    }
}

/// What the PEM passphrase callback reads.
private struct PassphraseBuffer {
    var bytes: UnsafePointer<UInt8>?
    var count: Int
    var given: Bool
}

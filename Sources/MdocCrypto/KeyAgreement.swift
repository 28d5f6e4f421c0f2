internal import COpenSSL

extension PrivateKey {
    /// Key agreement with `peer`: ECDH on EC2 curves (including brainpool) or X25519/X448.
    ///
    /// - Returns: the raw shared secret: for EC2 the x coordinate of the shared point
    ///   (``Curve/coordinateSize`` bytes), for X25519/X448 the RFC 7748 output.
    /// - Throws: ``CryptoError/unsupportedCurve(_:)`` for Ed25519/Ed448 keys,
    ///   ``CryptoError/invalidKey(_:)`` if `peer` is on another curve or is rejected by OpenSSL
    ///   (for X25519/X448 this includes a low-order peer giving an all-zero secret).
    public func sharedSecret(with peer: PublicKey) throws(CryptoError) -> SecretBytes {
        guard curve.supportsKeyAgreement else {
            throw .unsupportedCurve("\(curve.rawValue) keys cannot do key agreement")
        }
        guard peer.curve == curve else {
            throw .invalidKey("the peer key is on \(peer.curve.rawValue), not \(curve.rawValue)")
        }
        guard
            let context = EVP_PKEY_CTX_new_from_pkey(provider?.libraryContext, pkey, provider?.propertyQuery)
        else {
            throw .fromOpenSSL("EVP_PKEY_CTX_new_from_pkey")
        }
        defer { EVP_PKEY_CTX_free(context) }
        guard EVP_PKEY_derive_init(context) == 1 else { throw .fromOpenSSL("EVP_PKEY_derive_init") }
        // The peer was checked when it became a PublicKey (on the curve, which on our prime-order
        // curves is the whole check); OpenSSL's default would check it again, at the cost of a
        // multiplication by the group order, on every derivation.
        guard EVP_PKEY_derive_set_peer_ex(context, peer.pkey, 0) == 1 else {
            throw .invalidKey("OpenSSL rejected the peer key (\(drainOpenSSLErrors()))")
        }
        var length = 0
        guard EVP_PKEY_derive(context, nil, &length) == 1, length > 0 else {
            throw .fromOpenSSL("EVP_PKEY_derive")
        }
        let secret = try SecretBytes(count: length) { (buffer) throws(CryptoError) in
            var written = buffer.count
            let base = buffer.baseAddress!.assumingMemoryBound(to: UInt8.self)
            guard EVP_PKEY_derive(context, base, &written) == 1 else {
                throw .invalidKey("key agreement failed (\(drainOpenSSLErrors()))")
            }
            guard written == buffer.count else { throw .fromOpenSSL("EVP_PKEY_derive (short output)") }
        }
        return secret
    }
}

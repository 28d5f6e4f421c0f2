internal import COpenSSL

extension PrivateKey {
    /// Signs `message`.
    ///
    /// - ES256/ES384/ES512: ECDSA with SHA-256/384/512 over any EC2 curve; returns the raw
    ///   fixed-size r‖s (COSE form, 2 × ``Curve/coordinateSize`` bytes).
    /// - EdDSA: pure Ed25519 or Ed448 (64 or 114 bytes).
    ///
    /// - Throws: ``CryptoError/unsupportedCurve(_:)`` if the algorithm does not fit the key
    ///   (ECDSA needs an EC2 key, EdDSA an Ed25519/Ed448 key).
    public func sign(_ message: [UInt8], algorithm: SignatureAlgorithm) throws(CryptoError) -> [UInt8] {
        guard algorithm.isUsable(with: curve) else {
            throw .unsupportedCurve("\(algorithm.name) cannot sign with a \(curve.rawValue) key")
        }
        guard let context = EVP_MD_CTX_new() else { throw .fromOpenSSL("EVP_MD_CTX_new") }
        defer { EVP_MD_CTX_free(context) }
        let initialized: Bool
        if let provider {
            initialized =
                EVP_DigestSignInit_ex(
                    context, nil, algorithm.digest?.opensslName, provider.libraryContext, provider.propertyQuery, pkey,
                    nil) == 1
        } else {
            initialized = EVP_DigestSignInit(context, nil, algorithm.digest?.evpMD, nil, pkey) == 1
        }
        guard initialized else { throw .fromOpenSSL("EVP_DigestSignInit(\(algorithm.name))") }
        let signature = message.withUnsafeBufferPointer { input -> [UInt8]? in
            // A non-NULL pointer even for an empty message.
            let data = input.baseAddress ?? UnsafePointer(bitPattern: 1)!
            var length = 0
            guard EVP_DigestSign(context, nil, &length, data, input.count) == 1 else { return nil }
            var output = [UInt8](repeating: 0, count: length)
            guard EVP_DigestSign(context, &output, &length, data, input.count) == 1 else { return nil }
            return Array(output.prefix(length))
        }
        guard let signature else { throw .fromOpenSSL("EVP_DigestSign(\(algorithm.name))") }
        if algorithm == .edDSA { return signature }
        return try ECDSASignatureFormat.raw(fromDER: signature, size: curve.coordinateSize)
    }
}

extension PublicKey {
    /// Checks a COSE-form signature over `message`: raw r‖s for ECDSA (exactly
    /// 2 × ``Curve/coordinateSize`` bytes), the plain signature for EdDSA.
    ///
    /// Returns `false`, never throws, for a wrong signature, a signature of the wrong length, or
    /// an algorithm that does not fit the key.
    public func isValidSignature(_ signature: [UInt8], for message: [UInt8], algorithm: SignatureAlgorithm) -> Bool {
        defer { clearOpenSSLErrors() }
        guard algorithm.isUsable(with: curve) else { return false }
        let encoded: [UInt8]
        if algorithm == .edDSA {
            guard signature.count == (curve == .ed25519 ? 64 : 114) else { return false }
            encoded = signature
        } else {
            guard signature.count == 2 * curve.coordinateSize,
                let der = ECDSASignatureFormat.der(fromRaw: signature)
            else { return false }
            encoded = der
        }
        guard let context = EVP_MD_CTX_new() else { return false }
        defer { EVP_MD_CTX_free(context) }
        guard EVP_DigestVerifyInit(context, nil, algorithm.digest?.evpMD, nil, pkey) == 1 else { return false }
        return message.withUnsafeBufferPointer { input in
            let data = input.baseAddress ?? UnsafePointer(bitPattern: 1)!
            return EVP_DigestVerify(context, encoded, encoded.count, data, input.count) == 1
        }
    }
}

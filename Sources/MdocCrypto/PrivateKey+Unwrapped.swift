internal import COpenSSL

/// Reading a private key this process wrapped itself.
extension PrivateKey {
    /// A key from a DER PKCS#8 PrivateKeyInfo whose integrity is already assured: it was written
    /// by ``pkcs8DER()`` and has just come back through an authenticated decryption under a key
    /// the caller holds (a secure area's wrapped key). The layout OpenSSL writes is read
    /// directly and the key built from the curve's template, without OpenSSL 3.0's generic
    /// decoder and without the pair check (the encryption's tag already vouches for the pair):
    /// about 20 µs instead of several hundred. Any other form, or a key of another curve, is
    /// read as ``init(pkcs8DER:)`` reads it.
    ///
    /// The caller still owns (and should clear) `der`; the scalar is copied only into
    /// OpenSSL's key object (freed, and cleared, with this object).
    ///
    /// - Parameter known: the key's public key when the caller has it already (an EC2 key's
    ///   public point is in the PKCS#8 too; when they are equal the object is shared instead of
    ///   built again, about a third of the cost).
    public convenience init(authenticatedPKCS8DER der: [UInt8], curve: Curve, publicKey known: PublicKey? = nil)
        throws(CryptoError)
    {
        guard let layout = PKCS8Layout(der), let template = try? CurveTemplate.of(curve),
            der[layout.algorithm].elementsEqual(template.algorithmIdentifier),
            let pkey = Self.keyPair(der, layout: layout, template: template)
        else {
            try self.init(pkcs8DER: der)
            return
        }
        let publicKey: PublicKey
        do throws(CryptoError) {
            if let point = layout.publicPoint, let known, known.curve == curve, let y = known.y,
                der[point].elementsEqual([0x04] + known.x + y)
            {
                publicKey = known
            } else if let point = layout.publicPoint {
                publicKey = try PublicKey(curve: curve, uncompressedPoint: Array(der[point]))
            } else {
                publicKey = try PublicKey(copying: pkey, curve: curve)
            }
        } catch {
            EVP_PKEY_free(pkey)
            throw error
        }
        try self.init(adopting: pkey, checkPair: false, curve: curve, publicKey: publicKey)
    }

    /// The `EVP_PKEY` of the layout's parts, or nil when OpenSSL refuses them.
    private static func keyPair(_ der: [UInt8], layout: PKCS8Layout, template: CurveTemplate) -> OpaquePointer? {
        let curve = template.curve
        if curve.isOKP {
            guard layout.privateKey.count == curve.coordinateSize else { return nil }
            let pkey = der.withUnsafeBufferPointer { buffer in
                EVP_PKEY_new_raw_private_key_ex(
                    nil, curve.opensslKeyType, nil, buffer.baseAddress! + layout.privateKey.lowerBound,
                    layout.privateKey.count)
            }
            if pkey == nil { clearOpenSSLErrors() }
            return pkey
        }
        let size = curve.coordinateSize
        guard let group = curve.opensslGroupName, let point = layout.publicPoint, point.count == 1 + 2 * size,
            (1...size).contains(layout.privateKey.count)
        else { return nil }
        // OSSL_PARAM integers are native-endian.
        var nativeScalar = [UInt8](repeating: 0, count: size)
        defer { OPENSSL_cleanse(&nativeScalar, nativeScalar.count) }
        #if _endian(little)
            for (i, index) in layout.privateKey.reversed().enumerated() { nativeScalar[i] = der[index] }
        #else
            for (i, index) in layout.privateKey.enumerated() {
                nativeScalar[size - layout.privateKey.count + i] = der[index]
            }
        #endif
        return der.withUnsafeBytes { bytes in
            nativeScalar.withUnsafeBytes { priv in
                EVPKeyCoding.fromData(
                    keyType: "EC", selection: mdoc_EVP_PKEY_KEYPAIR(), template: template.parameters
                ) { params in
                    params.addUTF8("group", group)
                    params.addOctets("pub", UnsafeRawBufferPointer(rebasing: bytes[point]))
                    params.addUnsignedInteger("priv", nativeEndian: priv)
                }
            }
        }
    }
}

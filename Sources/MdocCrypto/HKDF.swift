internal import COpenSSL

/// HKDF (RFC 5869) through OpenSSL's EVP_KDF "HKDF", extract-then-expand.
public enum HKDF {
    /// HKDF-SHA256 of a secret input keying material, giving a secret of `length` bytes.
    ///
    /// An empty `salt` means HashLen zero bytes, as RFC 5869 specifies; `info` may be empty.
    /// - Throws: ``CryptoError/invalidLength(_:)`` unless `1 <= length <= 255 * 32`.
    public static func sha256(ikm: SecretBytes, salt: [UInt8], info: [UInt8], length: Int) throws(CryptoError)
        -> SecretBytes
    {
        guard length >= 1, length <= 255 * 32 else {
            throw .invalidLength("HKDF-SHA256 output must be 1...8160 bytes, not \(length)")
        }
        return try SecretBytes(count: length) { (output) throws(CryptoError) in
            try ikm.withUnsafeBytes { key in derive(ikm: key, salt: salt, info: info, into: output) }.get()
        }
    }

    /// HKDF-SHA256 of input keying material given as an array. The result is a plain array.
    public static func sha256(ikm: [UInt8], salt: [UInt8], info: [UInt8], length: Int) throws(CryptoError) -> [UInt8] {
        try sha256(ikm: SecretBytes(ikm), salt: salt, info: info, length: length).bytes
    }

    private static func derive(
        ikm: UnsafeRawBufferPointer, salt: [UInt8], info: [UInt8], into output: UnsafeMutableRawBufferPointer
    ) -> Result<Void, CryptoError> {
        // OpenSSL 3.0 cannot duplicate an HKDF context, so the digest is named per call.
        guard let context = EVP_KDF_CTX_new(FetchedAlgorithms.hkdf) else {
            return .failure(.fromOpenSSL("EVP_KDF_CTX_new"))
        }
        defer { EVP_KDF_CTX_free(context) }
        return salt.withUnsafeBytes { saltBytes in
            info.withUnsafeBytes { infoBytes in
                var placeholder: UInt8 = 0
                return withUnsafeBytes(of: &placeholder) { nonNull in
                    let params = OSSLParamList()
                    params.addUTF8("digest", "SHA2-256")
                    // OpenSSL needs a non-NULL key pointer even for the (RFC-allowed) empty key.
                    params.addOctets(
                        "key", ikm.baseAddress == nil ? UnsafeRawBufferPointer(rebasing: nonNull[0..<0]) : ikm)
                    // Absent salt and info are RFC 5869's defaults (zeros, empty).
                    if salt.count > 0 { params.addOctets("salt", saltBytes) }
                    if info.count > 0 { params.addOctets("info", infoBytes) }
                    let ok = params.withParams { p in
                        EVP_KDF_derive(
                            context, output.baseAddress?.assumingMemoryBound(to: UInt8.self), output.count, p)
                    }
                    return ok == 1 ? .success(()) : .failure(.fromOpenSSL("EVP_KDF_derive(HKDF-SHA256)"))
                }
            }
        }
    }
}

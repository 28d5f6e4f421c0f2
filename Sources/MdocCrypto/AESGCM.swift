internal import COpenSSL

/// AES in Galois/Counter Mode (COSE A128GCM / A192GCM / A256GCM; ISO 18013-5 session encryption).
public enum AESGCM {
    /// Length of the authentication tag appended to the ciphertext.
    public static let tagSize = 16
    /// Required IV length.
    public static let ivSize = 12

    /// Encrypts and authenticates `plaintext`, authenticating `aad` too.
    ///
    /// - Parameters:
    ///   - key: 16, 24 or 32 bytes (AES-128/192/256).
    ///   - iv: exactly 12 bytes; never reuse an IV with the same key.
    /// - Returns: ciphertext followed by the 16-byte tag.
    /// - Throws: ``CryptoError/invalidLength(_:)`` for a bad key or IV length.
    public static func seal(_ plaintext: [UInt8], key: SecretBytes, iv: [UInt8], aad: [UInt8] = []) throws(CryptoError)
        -> [UInt8]
    {
        let context = try start(key: key, iv: iv, encrypt: true, inputCount: plaintext.count)
        defer { EVP_CIPHER_CTX_free(context) }
        guard addAAD(aad, context: context, encrypt: true) else { throw .fromOpenSSL("EVP_EncryptUpdate(aad)") }
        var ok = false
        // Not zero-filled first: every byte is written below (ciphertext, then tag).
        let output = [UInt8](unsafeUninitializedCapacity: plaintext.count + tagSize) { out, initialized in
            initialized = out.count
            ok = sealInto(out, plaintext: plaintext, context: context)
        }
        guard ok else { throw .fromOpenSSL("AES-GCM encryption") }
        return output
    }

    /// Encrypts into `out` (ciphertext, then the tag): every byte of it is written on success.
    private static func sealInto(_ out: UnsafeMutableBufferPointer<UInt8>, plaintext: [UInt8], context: OpaquePointer)
        -> Bool
    {
        var written: Int32 = 0
        if !plaintext.isEmpty {
            guard EVP_EncryptUpdate(context, out.baseAddress, &written, plaintext, Int32(plaintext.count)) == 1
            else { return false }
        }
        // GCM's final step emits no bytes; give it a scratch buffer anyway.
        var scratch = [UInt8](repeating: 0, count: tagSize)
        var final: Int32 = 0
        guard EVP_EncryptFinal_ex(context, &scratch, &final) == 1, final == 0, Int(written) == plaintext.count
        else { return false }
        return EVP_CIPHER_CTX_ctrl(context, EVP_CTRL_GCM_GET_TAG, Int32(tagSize), out.baseAddress! + plaintext.count)
            == 1
    }

    /// Checks the tag and decrypts `ciphertextAndTag` (ciphertext followed by the 16-byte tag).
    ///
    /// - Throws: ``CryptoError/decryptionFailed`` if the tag does not match (or the input is
    ///   shorter than a tag); no plaintext is released then. ``CryptoError/invalidLength(_:)``
    ///   for a bad key or IV length.
    public static func open(_ ciphertextAndTag: [UInt8], key: SecretBytes, iv: [UInt8], aad: [UInt8] = [])
        throws(CryptoError) -> [UInt8]
    {
        guard ciphertextAndTag.count >= tagSize else {
            // Validate key and IV first so a configuration error is still reported as such.
            let context = try start(key: key, iv: iv, encrypt: false, inputCount: 0)
            EVP_CIPHER_CTX_free(context)
            throw .decryptionFailed
        }
        let ciphertextCount = ciphertextAndTag.count - tagSize
        let context = try start(key: key, iv: iv, encrypt: false, inputCount: ciphertextCount)
        defer { EVP_CIPHER_CTX_free(context) }
        guard addAAD(aad, context: context, encrypt: false) else { throw .fromOpenSSL("EVP_DecryptUpdate(aad)") }
        var plaintext = [UInt8](repeating: 0, count: ciphertextCount)
        let authentic = ciphertextAndTag.withUnsafeBufferPointer { input in
            plaintext.withUnsafeMutableBufferPointer { out -> Bool in
                var written: Int32 = 0
                if ciphertextCount > 0 {
                    guard
                        EVP_DecryptUpdate(context, out.baseAddress, &written, input.baseAddress, Int32(ciphertextCount))
                            == 1
                    else { return false }
                }
                var tag = Array(input[ciphertextCount...])
                guard EVP_CIPHER_CTX_ctrl(context, EVP_CTRL_GCM_SET_TAG, Int32(tagSize), &tag) == 1 else {
                    return false
                }
                // GCM's final step checks the tag and emits no bytes.
                var scratch = [UInt8](repeating: 0, count: tagSize)
                var final: Int32 = 0
                return EVP_DecryptFinal_ex(context, &scratch, &final) == 1 && final == 0
                    && Int(written) == ciphertextCount
            }
        }
        guard authentic else {
            OPENSSL_cleanse(&plaintext, plaintext.count)
            clearOpenSSLErrors()
            throw .decryptionFailed
        }
        return plaintext
    }

    /// Checks lengths and makes a context keyed with `key` and `iv`.
    private static func start(key: SecretBytes, iv: [UInt8], encrypt: Bool, inputCount: Int) throws(CryptoError)
        -> OpaquePointer
    {
        let cipher: OpaquePointer
        switch key.count {
        case 16: cipher = FetchedAlgorithms.aes128GCM
        case 24: cipher = FetchedAlgorithms.aes192GCM
        case 32: cipher = FetchedAlgorithms.aes256GCM
        default: throw .invalidLength("AES-GCM key must be 16, 24 or 32 bytes, not \(key.count)")
        }
        guard iv.count == ivSize else { throw .invalidLength("AES-GCM IV must be 12 bytes, not \(iv.count)") }
        guard inputCount <= Int(Int32.max) - tagSize else {
            throw .invalidLength("AES-GCM input of \(inputCount) bytes is too long")
        }
        guard let context = EVP_CIPHER_CTX_new() else { throw .fromOpenSSL("EVP_CIPHER_CTX_new") }
        let keyed = key.withUnsafeBytes { keyBytes in
            let keyPointer = keyBytes.baseAddress!.assumingMemoryBound(to: UInt8.self)
            return encrypt
                ? EVP_EncryptInit_ex(context, cipher, nil, keyPointer, iv) == 1
                : EVP_DecryptInit_ex(context, cipher, nil, keyPointer, iv) == 1
        }
        guard keyed else {
            EVP_CIPHER_CTX_free(context)
            throw .fromOpenSSL(encrypt ? "EVP_EncryptInit_ex(AES-GCM)" : "EVP_DecryptInit_ex(AES-GCM)")
        }
        return context
    }

    private static func addAAD(_ aad: [UInt8], context: OpaquePointer, encrypt: Bool) -> Bool {
        guard !aad.isEmpty, aad.count <= Int(Int32.max) else { return aad.isEmpty }
        var ignored: Int32 = 0
        return encrypt
            ? EVP_EncryptUpdate(context, nil, &ignored, aad, Int32(aad.count)) == 1
            : EVP_DecryptUpdate(context, nil, &ignored, aad, Int32(aad.count)) == 1
    }
}

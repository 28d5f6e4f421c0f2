internal import COpenSSL

/// HMAC (RFC 2104) through OpenSSL's EVP_MAC "HMAC".
public enum HMAC {
    /// HMAC-SHA256 of `data` under `key`.
    public static func sha256(key: [UInt8], data: [UInt8]) -> [UInt8] {
        key.withUnsafeBytes { compute(key: $0, data: data) }
    }

    /// HMAC-SHA256 of `data` under a secret `key` (for example the ISO 18013-5 EMacKey).
    public static func sha256(key: SecretBytes, data: [UInt8]) -> [UInt8] {
        key.withUnsafeBytes { compute(key: $0, data: data) }
    }

    /// HMAC with built-in SHA-256 cannot fail short of memory exhaustion, which stops the process.
    private static func compute(key: UnsafeRawBufferPointer, data: [UInt8]) -> [UInt8] {
        var output = [UInt8](repeating: 0, count: 32)
        var length = 0
        guard let context = EVP_MAC_CTX_dup(FetchedAlgorithms.hmacSHA256Prototype) else {
            preconditionFailure("EVP_MAC_CTX_dup")
        }
        defer { EVP_MAC_CTX_free(context) }
        // HMAC treats a NULL key as "keep the previous key"; an empty key needs a real pointer.
        var placeholder: UInt8 = 0
        let ok = withUnsafeMutablePointer(to: &placeholder) { emptyKey in
            data.withUnsafeBytes { input in
                let keyPointer = (key.baseAddress ?? UnsafeRawPointer(emptyKey)).assumingMemoryBound(to: UInt8.self)
                return EVP_MAC_init(context, keyPointer, key.count, nil) == 1
                    && EVP_MAC_update(context, input.baseAddress?.assumingMemoryBound(to: UInt8.self), input.count) == 1
                    && EVP_MAC_final(context, &output, &length, output.count) == 1
            }
        }
        precondition(ok && length == 32, "HMAC-SHA256 failed")
        return output
    }
}

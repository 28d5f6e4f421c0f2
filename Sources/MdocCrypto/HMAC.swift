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
        // HMAC treats a NULL key as "keep the previous key"; an empty key needs a real pointer.
        var placeholder: UInt8 = 0
        let ok = withUnsafeMutablePointer(to: &placeholder) { emptyKey in
            data.withUnsafeBytes { input in
                EVP_Q_mac(
                    nil, "HMAC", nil, "SHA256", nil,
                    key.baseAddress ?? UnsafeRawPointer(emptyKey), key.count,
                    input.baseAddress?.assumingMemoryBound(to: UInt8.self), input.count,
                    &output, output.count, &length) != nil
            }
        }
        precondition(ok && length == 32, "HMAC-SHA256 failed")
        return output
    }
}

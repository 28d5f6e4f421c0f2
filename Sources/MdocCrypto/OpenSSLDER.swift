internal import COpenSSL

/// OpenSSL's `i2d_*` encoders, called the way they are meant to be: once with no buffer for
/// the length, then into an array of that length.
enum OpenSSLDER {
    /// The DER `encode` writes, nil when it fails (no length, or a second call that writes
    /// another count); OpenSSL's error queue is left as it is. A failed encoding is cleared
    /// before it is dropped, as it may hold a private key.
    static func encode(_ encode: (UnsafeMutablePointer<UnsafeMutablePointer<UInt8>?>?) -> Int32) -> [UInt8]? {
        let length = encode(nil)
        guard length > 0 else { return nil }
        var der = [UInt8](repeating: 0, count: Int(length))
        let written = der.withUnsafeMutableBufferPointer { buffer -> Int32 in
            var cursor = buffer.baseAddress
            return encode(&cursor)
        }
        guard written == length else {
            OPENSSL_cleanse(&der, der.count)
            return nil
        }
        return der
    }
}

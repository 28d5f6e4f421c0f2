internal import COpenSSL

/// Cryptographically secure random bytes from OpenSSL's `RAND_bytes`.
public enum SecureRandom {
    /// `count` random bytes.
    ///
    /// If OpenSSL's generator cannot produce output (it is not seeded), the process stops rather
    /// than return predictable bytes.
    public static func bytes(_ count: Int) -> [UInt8] {
        precondition(count >= 0, "negative byte count")
        var output = [UInt8](repeating: 0, count: count)
        output.withUnsafeMutableBufferPointer { buffer in
            var offset = 0
            while offset < buffer.count {
                let chunk = min(buffer.count - offset, Int(Int32.max))
                guard RAND_bytes(buffer.baseAddress! + offset, Int32(chunk)) == 1 else {
                    fatalError("RAND_bytes failed: \(drainOpenSSLErrors())")
                }
                offset += chunk
            }
        }
        return output
    }
}

internal import COpenSSL

/// Helpers for OpenSSL memory BIOs.
enum MemoryBIO {
    /// Runs `body` with a read-only BIO over `bytes`. Returns `nil` if the BIO cannot be made.
    static func reading<R>(_ bytes: [UInt8], _ body: (OpaquePointer) -> R) -> R? {
        guard bytes.count <= Int(Int32.max) else { return nil }
        return bytes.withUnsafeBytes { buffer -> R? in
            // A non-null pointer even for empty input (length 0 is then honoured).
            let base = buffer.baseAddress ?? UnsafeRawPointer(bitPattern: 1)
            guard let bio = BIO_new_mem_buf(base, Int32(buffer.count)) else { return nil }
            defer { BIO_free(bio) }
            return body(bio)
        }
    }

    /// Runs `write` with a fresh writable memory BIO and returns everything written, or `nil` if
    /// `write` reports failure. With `secure`, the BIO uses OpenSSL's secure heap (cleared when
    /// freed) and the transfer buffer is cleansed.
    static func collecting(secure: Bool = false, _ write: (OpaquePointer) -> Bool) -> [UInt8]? {
        guard let bio = BIO_new(secure ? BIO_s_secmem() : BIO_s_mem()) else { return nil }
        defer { BIO_free(bio) }
        guard write(bio) else { return nil }
        var result: [UInt8] = []
        result.reserveCapacity(Int(BIO_ctrl_pending(bio)))  // one allocation: no stray copies
        var chunk = [UInt8](repeating: 0, count: 4096)
        defer { OPENSSL_cleanse(&chunk, chunk.count) }
        while true {
            let n = BIO_read(bio, &chunk, Int32(chunk.count))
            if n <= 0 { break }
            result.append(contentsOf: chunk[0..<Int(n)])
        }
        clearOpenSSLErrors()  // an empty memory BIO reports a retryable read, not an error
        return result
    }
}

internal import COpenSSL

/// Empties this thread's OpenSSL error queue and returns its entries as one line.
///
/// OpenSSL's texts name a library, routine and reason (e.g. "error:1C800064:Provider
/// routines::bad decrypt"); they never contain key or message bytes.
func drainOpenSSLErrors() -> String {
    var reasons: [String] = []
    var buffer = [CChar](repeating: 0, count: 256)
    while true {
        let code = ERR_get_error()
        if code == 0 { break }
        let text = buffer.withUnsafeMutableBufferPointer { chars -> String in
            ERR_error_string_n(code, chars.baseAddress, chars.count)
            return String(cString: chars.baseAddress!)
        }
        reasons.append(text)
    }
    return reasons.isEmpty ? "no reason given" : reasons.joined(separator: "; ")
}

/// Discards this thread's OpenSSL error queue (after a failure that is reported another way).
func clearOpenSSLErrors() {
    ERR_clear_error()
}

extension CryptoError {
    /// An `.openssl` error for `operation`, with the reason taken from (and clearing) the queue.
    static func fromOpenSSL(_ operation: String) -> CryptoError {
        .openssl(operation: operation, reason: drainOpenSSLErrors())
    }
}

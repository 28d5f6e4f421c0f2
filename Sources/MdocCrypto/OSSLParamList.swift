internal import COpenSSL

/// Builds an `OSSL_PARAM` array for OpenSSL 3 calls.
///
/// Keys and UTF-8 values are copied into C strings this object owns, so they stay valid for the
/// whole call. Octet-string values are *borrowed*: the caller keeps those buffers alive (and
/// clears secret ones) until it is done with the array, so secrets are not copied here.
final class OSSLParamList {
    private var ownedStrings: [UnsafeMutablePointer<CChar>] = []
    private var params: [OSSL_PARAM] = []

    deinit {
        for string in ownedStrings { string.deallocate() }
    }

    private func cString(_ text: String) -> UnsafeMutablePointer<CChar> {
        let utf8 = Array(text.utf8)
        let pointer = UnsafeMutablePointer<CChar>.allocate(capacity: utf8.count + 1)
        for (i, byte) in utf8.enumerated() { pointer[i] = CChar(bitPattern: byte) }
        pointer[utf8.count] = 0
        ownedStrings.append(pointer)
        return pointer
    }

    /// Adds a UTF-8 string parameter (copied).
    func addUTF8(_ key: String, _ value: String) {
        params.append(OSSL_PARAM_construct_utf8_string(cString(key), cString(value), 0))
    }

    /// Adds an octet-string parameter pointing at `buffer`, which must outlive the array's use.
    func addOctets(_ key: String, _ buffer: UnsafeRawBufferPointer) {
        params.append(
            OSSL_PARAM_construct_octet_string(
                cString(key), UnsafeMutableRawPointer(mutating: buffer.baseAddress), buffer.count))
    }

    /// Adds an unsigned integer parameter given as native-endian bytes in `buffer`, which must
    /// outlive the array's use.
    func addUnsignedInteger(_ key: String, nativeEndian buffer: UnsafeRawBufferPointer) {
        params.append(
            OSSL_PARAM_construct_BN(
                cString(key), UnsafeMutablePointer(mutating: buffer.bindMemory(to: UInt8.self).baseAddress),
                buffer.count))
    }

    /// Calls `body` with the terminated array.
    func withParams<R>(_ body: (UnsafeMutablePointer<OSSL_PARAM>) -> R) -> R {
        var all = params
        all.append(OSSL_PARAM_construct_end())
        return all.withUnsafeMutableBufferPointer { body($0.baseAddress!) }
    }
}

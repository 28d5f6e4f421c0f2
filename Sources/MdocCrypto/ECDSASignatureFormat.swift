internal import COpenSSL

/// Conversion between COSE's fixed-size r‖s ECDSA signatures and OpenSSL's DER ECDSA-Sig-Value.
enum ECDSASignatureFormat {
    /// DER `SEQUENCE { r INTEGER, s INTEGER }` to r‖s, each left-padded to `size` bytes.
    static func raw(fromDER der: [UInt8], size: Int) throws(CryptoError) -> [UInt8] {
        let parsed = der.withUnsafeBufferPointer { buffer -> OpaquePointer? in
            var cursor = buffer.baseAddress
            return d2i_ECDSA_SIG(nil, &cursor, buffer.count)
        }
        guard let signature = parsed else {
            throw .invalidSignatureFormat("not a DER ECDSA signature (\(drainOpenSSLErrors()))")
        }
        defer { ECDSA_SIG_free(signature) }
        var r: OpaquePointer?
        var s: OpaquePointer?
        ECDSA_SIG_get0(signature, &r, &s)
        var output = [UInt8](repeating: 0, count: 2 * size)
        let ok = output.withUnsafeMutableBufferPointer { buffer in
            BN_bn2binpad(r, buffer.baseAddress, Int32(size)) == Int32(size)
                && BN_bn2binpad(s, buffer.baseAddress! + size, Int32(size)) == Int32(size)
        }
        guard ok else { throw .invalidSignatureFormat("r or s is longer than \(size) bytes") }
        return output
    }

    /// r‖s (two halves of equal length) to DER. `nil` for an odd or empty length.
    static func der(fromRaw raw: [UInt8]) -> [UInt8]? {
        guard !raw.isEmpty, raw.count % 2 == 0, raw.count / 2 <= Int(Int32.max) else { return nil }
        let half = raw.count / 2
        guard let signature = ECDSA_SIG_new() else { return nil }
        defer { ECDSA_SIG_free(signature) }
        let r = BN_bin2bn(raw, Int32(half), nil)
        let s = raw.withUnsafeBufferPointer { BN_bin2bn($0.baseAddress! + half, Int32(half), nil) }
        guard let r, let s, ECDSA_SIG_set0(signature, r, s) == 1 else {
            BN_free(r)
            BN_free(s)
            clearOpenSSLErrors()
            return nil
        }
        guard let der = OpenSSLDER.encode({ i2d_ECDSA_SIG(signature, $0) }) else {
            clearOpenSSLErrors()
            return nil
        }
        return der
    }
}

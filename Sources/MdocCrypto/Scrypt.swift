internal import COpenSSL

/// scrypt (RFC 7914), for keys derived from a passphrase.
public enum Scrypt {
    /// Cost parameters. The default (N = 2^15, r = 8, p = 1) takes about 0.1 s and 32 MiB.
    public struct Cost: Sendable, Hashable {
        public var logN: UInt8
        public var r: UInt32
        public var p: UInt32
        public init(logN: UInt8 = 15, r: UInt32 = 8, p: UInt32 = 1) {
            self.logN = logN
            self.r = r
            self.p = p
        }
    }

    /// `length` bytes derived from `passphrase` and `salt`.
    public static func derive(passphrase: String, salt: [UInt8], cost: Cost = Cost(), length: Int = 32)
        throws(CryptoError) -> SecretBytes
    {
        guard cost.logN >= 1, cost.logN < 32 else { throw .invalidLength("scrypt log2(N) must be 1 ... 31") }
        var pass = Array(passphrase.utf8).map { CChar(bitPattern: $0) } + [0]
        let passCount = pass.count - 1
        defer { OPENSSL_cleanse(&pass, pass.count) }
        let n = UInt64(1) << UInt64(cost.logN)
        // OpenSSL's limit: 128 * N * r bytes of work memory, plus margin.
        let maxMemory = 128 * n * UInt64(cost.r) + 16 * 1024 * 1024
        return try SecretBytes(count: length) { (buffer) throws(CryptoError) in
            let out = buffer.baseAddress!.assumingMemoryBound(to: UInt8.self)
            let ok = pass.withUnsafeBufferPointer { chars in
                EVP_PBE_scrypt(
                    chars.baseAddress, passCount, salt, salt.count, n, UInt64(cost.r), UInt64(cost.p), maxMemory,
                    out, length)
            }
            guard ok == 1 else { throw .fromOpenSSL("EVP_PBE_scrypt") }
        }
    }
}

internal import COpenSSL

/// Hash functions used by COSE and ISO 18013-5.
public enum DigestAlgorithm: Sendable, CaseIterable {
    /// SHA-256 (32-byte digest).
    case sha256
    /// SHA-384 (48-byte digest).
    case sha384
    /// SHA-512 (64-byte digest).
    case sha512

    /// The digest length in bytes.
    public var outputSize: Int {
        switch self {
        case .sha256: return 32
        case .sha384: return 48
        case .sha512: return 64
        }
    }

    /// OpenSSL's name of this algorithm, for the `_ex` calls that fetch it from a provider.
    var opensslName: String {
        switch self {
        case .sha256: return "SHA256"
        case .sha384: return "SHA384"
        case .sha512: return "SHA512"
        }
    }

    /// OpenSSL's `EVP_MD` for this algorithm, fetched once (``FetchedAlgorithms``).
    var evpMD: OpaquePointer {
        switch self {
        case .sha256: return FetchedAlgorithms.sha256
        case .sha384: return FetchedAlgorithms.sha384
        case .sha512: return FetchedAlgorithms.sha512
        }
    }
}

/// One-shot message digests.
public enum Digest {
    /// The digest of `data` with `algorithm`.
    ///
    /// Hashing with OpenSSL's built-in digests cannot fail short of memory exhaustion, which
    /// stops the process.
    public static func hash(_ data: [UInt8], algorithm: DigestAlgorithm) -> [UInt8] {
        var output = [UInt8](repeating: 0, count: algorithm.outputSize)
        var length: UInt32 = 0
        let ok = data.withUnsafeBytes { input in
            EVP_Digest(input.baseAddress, input.count, &output, &length, algorithm.evpMD, nil) == 1
        }
        precondition(ok && Int(length) == algorithm.outputSize, "EVP_Digest failed")
        return output
    }

    /// The SHA-256 digest of `data`.
    public static func sha256(_ data: [UInt8]) -> [UInt8] {
        hash(data, algorithm: .sha256)
    }
}

import Base64
import JOSE
import MdocCrypto

/// The hash function of an SD-JWT's digests (`_sd_alg`, RFC 9901 section 4.1.1), by its name in
/// the IANA "Named Information Hash Algorithm" registry.
public enum SDHashAlgorithm: String, Sendable, CaseIterable, Hashable {
    case sha256 = "sha-256"
    case sha384 = "sha-384"
    case sha512 = "sha-512"

    /// The algorithm a payload's `_sd_alg` member names; absent means sha-256.
    ///
    /// - Throws: ``SDJWTError/unsupportedHashAlgorithm(_:)`` for any other name, and
    ///   ``SDJWTError/malformed(_:)`` when the member is not a string.
    public init(payloadMember: JSONValue?) throws(SDJWTError) {
        guard let payloadMember else {
            self = .sha256
            return
        }
        guard let name = payloadMember.stringValue else { throw .malformed("_sd_alg is not a string") }
        guard let algorithm = SDHashAlgorithm(rawValue: name) else { throw .unsupportedHashAlgorithm(name) }
        self = algorithm
    }

    var digestAlgorithm: DigestAlgorithm {
        switch self {
        case .sha256: return .sha256
        case .sha384: return .sha384
        case .sha512: return .sha512
        }
    }

    /// base64url(hash(ASCII(text))): the digest of a Disclosure as it travelled, and the
    /// `sd_hash` of a presentation.
    public func digest(ofASCII text: String) -> String {
        Base64URL.encode(Digest.hash(Array(text.utf8), algorithm: digestAlgorithm))
    }
}

import Base64
import JOSE
import MdocCrypto

/// Proof Key for Code Exchange (RFC 7636) with the S256 method: a fresh random verifier per
/// authorization, its SHA-256 challenge in the authorization request, the verifier in the
/// token request.
///
/// `description` never shows the verifier.
public struct PKCE: Sendable, CustomStringConvertible {
    public static let method = "S256"

    /// 43 characters of base64url (32 random bytes): within RFC 7636's 43...128 unreserved.
    public let verifier: String

    public init() {
        verifier = Base64URL.encode(SecureRandom.bytes(32))
    }

    /// For tests: a given verifier.
    public init(verifier: String) {
        self.verifier = verifier
    }

    /// `code_challenge`: base64url(SHA-256(ASCII(verifier))) (RFC 7636 section 4.2).
    public var challenge: String { Self.challenge(for: verifier) }

    public static func challenge(for verifier: String) -> String {
        Base64URL.encode(Digest.sha256(Array(verifier.utf8)))
    }

    public var description: String { "PKCE(S256)" }
}

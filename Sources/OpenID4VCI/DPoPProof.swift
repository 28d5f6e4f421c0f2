import Base64
import FoundationEssentials
import JOSE
import MdocCrypto
import OAuthWeb

/// Demonstrating Proof of Possession (RFC 9449): one ephemeral key per issuance, and a fresh
/// proof JWT for every token and credential request. The key never leaves this value's memory.
///
/// `description` never shows the key or a nonce.
public struct DPoPKey: Sendable, CustomStringConvertible {
    public static let type = "dpop+jwt"

    /// Signs a proof's signing input (raw r‖s).
    public typealias Signer = @Sendable ([UInt8]) throws -> [UInt8]

    private let signer: Signer
    /// The `jwk` header value.
    public let publicJWK: JWK
    /// The ephemeral key while it is in memory (nil for a key used through a secure area): a
    /// pending deferred issuance keeps it, wrapped, in the software secure area.
    public let ephemeralKey: PrivateKey?

    /// A new ephemeral P-256 key.
    public init() throws(IssuanceError) {
        let key: PrivateKey
        do {
            key = try PrivateKey.generate(.p256)
            publicJWK = try JWK(publicKey: key.publicKey)
        } catch {
            throw .unsupported("no DPoP key could be made: \(error)")
        }
        ephemeralKey = key
        signer = { input in try key.sign(input, algorithm: .es256) }
    }

    /// A P-256 key held elsewhere (a pending issuance's key in the software secure area).
    public init(publicKey: PublicKey, signer: @escaping Signer) throws(IssuanceError) {
        guard publicKey.curve == .p256 else { throw .unsupported("a DPoP key must be P-256") }
        do {
            publicJWK = try JWK(publicKey: publicKey)
        } catch {
            throw .unsupported("the DPoP key has no JWK form: \(error)")
        }
        ephemeralKey = nil
        self.signer = signer
    }

    /// A proof for one request (RFC 9449 section 4.2): header `typ` `dpop+jwt`, `alg` ES256,
    /// `jwk`; payload `jti` (random), `htm`, `htu` (the URL without query and fragment), `iat`,
    /// `ath` (base64url SHA-256 of the access token, for resource requests) and `nonce` (the
    /// server's, once it sent one).
    public func proof(method: String, url: String, issuedAt: Date, accessToken: String? = nil, nonce: String? = nil)
        throws(IssuanceError) -> String
    {
        guard let parsed = ParsedURL(url) else { throw .invalidMetadata("an endpoint is not a valid URL") }
        var payload: [String: JSONValue] = [
            "jti": .string(Base64URL.encode(SecureRandom.bytes(16))), "htm": .string(method),
            "htu": .string(parsed.withoutQueryAndFragment),
            "iat": .number(issuedAt.timeIntervalSince1970.rounded(.down)),
        ]
        if let accessToken { payload["ath"] = .string(Self.accessTokenHash(accessToken)) }
        if let nonce { payload["nonce"] = .string(nonce) }
        do {
            return try JWS.sign(
                payload: JSONValue.object(payload).serialized,
                header: ["typ": .string(Self.type), "jwk": publicJWK.json()], algorithm: .es256
            ) { input in try signer(input) }
        } catch {
            throw .unsupported("a DPoP proof could not be signed: \(error)")
        }
    }

    /// `ath`: base64url(SHA-256(ASCII(access token))).
    public static func accessTokenHash(_ token: String) -> String {
        Base64URL.encode(Digest.sha256(Array(token.utf8)))
    }

    public var description: String { "DPoPKey(P-256)" }
}

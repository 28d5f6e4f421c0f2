import Base64
import JOSE
import MdocCrypto
import OAuthWeb

/// What this wallet tells a verifier in a request_uri POST (OpenID4VP 1.0 section 5.10):
/// `wallet_metadata` and a fresh `wallet_nonce`, form-encoded, sent with
/// `Accept: application/oauth-authz-req+jwt`.
public enum WalletMetadata {
    /// The `Accept` header of the request_uri fetch.
    public static let accept = "application/" + RequestObjectVerifier.requestObjectType

    /// The wallet metadata (section 10): mso_mdoc with the COSE algorithms this holder
    /// verifies and signs with, dc+sd-jwt with the JWS algorithms of issuer-signed and Key
    /// Binding JWTs, the client identifier prefixes it supports, the Request Object
    /// algorithms (left out for `redirect_uri:`, which cannot sign), the response modes and
    /// the response encryption it can do.
    public static func json(for clientID: ClientIdentifier? = nil) -> JSONValue {
        let algorithms: [JSONValue] = [.number(-7), .number(-35), .number(-36), .number(-8), .number(-9)]
        let jwsAlgorithms = JSONValue.array(JWSAlgorithm.allCases.map { .string($0.rawValue) })
        var members: [String: JSONValue] = [
            "vp_formats_supported": [
                "mso_mdoc": ["issuerauth_alg_values": .array(algorithms), "deviceauth_alg_values": .array(algorithms)],
                "dc+sd-jwt": ["sd-jwt_alg_values": jwsAlgorithms, "kb-jwt_alg_values": jwsAlgorithms],
            ],
            "client_id_prefixes_supported": [
                "pre-registered", "redirect_uri", "x509_san_dns", "x509_hash", "decentralized_identifier",
            ],
            "response_types_supported": ["vp_token"],
            "response_modes_supported": ["direct_post", "direct_post.jwt"],
            "authorization_encryption_alg_values_supported": ["ECDH-ES"],
            "authorization_encryption_enc_values_supported": .array(
                JWEContentEncryption.allCases.map { .string($0.rawValue) }),
        ]
        if clientID?.prefix != .redirectURI {
            members["request_object_signing_alg_values_supported"] = .array(
                JWSAlgorithm.allCases.map { .string($0.rawValue) })
        }
        return .object(members)
    }

    /// A fresh `wallet_nonce`: 128 random bits, base64url.
    public static func makeWalletNonce() -> String {
        Base64URL.encode(SecureRandom.bytes(16))
    }

    /// The request_uri POST body: `wallet_metadata` (JSON text) and `wallet_nonce`. Keep the
    /// nonce and pass it to ``RequestObjectVerifier/verify(requestObject:clientID:walletNonce:at:)``.
    public static func requestURIBody(walletNonce: String, clientID: String) -> FormBody {
        FormBody([
            .init("wallet_metadata", json(for: ClientIdentifier(clientID)).serializedString),
            .init("wallet_nonce", walletNonce),
        ])
    }
}

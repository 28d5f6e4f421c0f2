import FoundationEssentials
import JOSE
import MdocCrypto

/// A key proof of type `jwt` (OpenID4VCI 1.0 appendix F.1): a JWS by the key to bind, with
/// `typ` `openid4vci-proof+jwt`, the public key as `jwk` in the header, and `aud` (the
/// Credential Issuer Identifier), `iat` and `nonce` (the `c_nonce`) in the payload; `iss` (the
/// client ID) only when the wallet has one (not in anonymous pre-authorized access).
public enum KeyProof {
    public static let type = "openid4vci-proof+jwt"

    /// The header and payload of one proof, before signing.
    public static func claims(
        publicKey: PublicKey, audience: String, nonce: String?, issuedAt: Date, clientID: String? = nil
    ) throws(JOSEError) -> (header: [String: JSONValue], payload: [UInt8]) {
        let header: [String: JSONValue] = ["typ": .string(type), "jwk": try JWK(publicKey: publicKey).json()]
        var payload: [String: JSONValue] = [
            "aud": .string(audience), "iat": .number(issuedAt.timeIntervalSince1970.rounded(.down)),
        ]
        if let nonce { payload["nonce"] = .string(nonce) }
        if let clientID { payload["iss"] = .string(clientID) }
        return (header, JSONValue.object(payload).serialized)
    }

    /// A signed proof; `signer` signs with the key in its secure area (raw r‖s).
    public static func make<Failure: Error>(
        publicKey: PublicKey, audience: String, nonce: String?, issuedAt: Date, clientID: String? = nil,
        signer: ([UInt8]) throws(Failure) -> [UInt8]
    ) throws(IssuanceError) -> String {
        guard let algorithm = JWSAlgorithm.forSigning(with: publicKey.curve) else {
            throw .unsupported("a \(publicKey.curve.rawValue) key cannot sign a JWT proof")
        }
        do {
            let (header, payload) = try claims(
                publicKey: publicKey, audience: audience, nonce: nonce, issuedAt: issuedAt, clientID: clientID)
            return try JWS.sign(payload: payload, header: header, algorithm: algorithm) { input in
                try signer(input)
            }
        } catch let error as IssuanceError {
            throw error
        } catch {
            throw .unsupported("the key proof could not be signed: \(error)")
        }
    }
}

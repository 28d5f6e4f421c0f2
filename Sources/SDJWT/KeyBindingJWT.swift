import FoundationEssentials
import JOSE
import MdocCrypto

/// The Key Binding JWT (RFC 9901 section 4.3): the holder's signature, with the key the issuer
/// put in `cnf`, over the verifier's `aud` and `nonce` and the hash of the presentation.
public enum KeyBindingJWT {
    /// The `typ` header of a Key Binding JWT.
    public static let type = "kb+jwt"

    /// What a Key Binding JWT binds.
    public struct Binding: Sendable, Equatable {
        /// The verifier (for OpenID4VP: the full client_id, prefix included).
        public var audience: String
        /// The verifier's nonce.
        public var nonce: String
        public var issuedAt: Date

        public init(audience: String, nonce: String, issuedAt: Date) {
            self.audience = audience
            self.nonce = nonce
            self.issuedAt = issuedAt
        }
    }

    /// Signs a Key Binding JWT for `presentation` (an SD-JWT ending in `~`, as
    /// ``SDJWT/presentation(disclosing:)`` makes it) and returns the presentation with it
    /// appended.
    ///
    /// - Parameter sign: signs the JWS signing input with `algorithm` (raw r‖s for ECDSA): a
    ///   secure-area key, or a private key in tests.
    public static func append(
        to presentation: String, binding: Binding, hashAlgorithm: SDHashAlgorithm, algorithm: JWSAlgorithm,
        sign: ([UInt8]) throws -> [UInt8]
    ) throws(SDJWTError) -> String {
        guard presentation.hasSuffix("~") else { throw .keyBinding("the presentation does not end with ~") }
        let payload: JSONValue = [
            "iat": .number(binding.issuedAt.timeIntervalSince1970.rounded(.down)),
            "aud": .string(binding.audience),
            "nonce": .string(binding.nonce),
            "sd_hash": .string(hashAlgorithm.digest(ofASCII: presentation)),
        ]
        do {
            return presentation
                + (try JWS.sign(payload: payload.serialized, header: ["typ": .string(type)], algorithm: algorithm) {
                    try sign($0)
                })
        } catch {
            throw .signing("\(error)")
        }
    }

    /// Checks the Key Binding JWT of `sdJWT` against the key in the issuer-signed JWT's
    /// `cnf.jwk` and what the verifier expects.
    ///
    /// - Parameter maximumAge: how old `iat` may be (and how far in the future, for clock skew).
    /// - Throws: ``SDJWTError/keyBinding(_:)`` naming the first check that failed.
    public static func verify(
        _ sdJWT: SDJWT, audience: String, nonce: String, now: Date = Date(), maximumAge: TimeInterval = 300
    ) throws(SDJWTError) {
        guard let kb = sdJWT.keyBindingJWT else { throw .keyBinding("there is no Key Binding JWT") }
        guard kb.type == type else { throw .keyBinding("typ is not \(type)") }
        let key = try holderKey(of: sdJWT)
        do {
            try kb.verify(with: key)
        } catch {
            throw .keyBinding("the signature does not verify with cnf.jwk (\(error))")
        }
        let claims: [String: JSONValue]
        do {
            claims = try kb.payloadJSON()
        } catch {
            throw .jose(error)
        }
        guard claims["aud"]?.stringValue == audience else { throw .keyBinding("aud is not this verifier") }
        guard claims["nonce"]?.stringValue == nonce else { throw .keyBinding("nonce is not this request's") }
        guard let iat = claims["iat"]?.numberValue else { throw .keyBinding("iat is missing") }
        guard abs(now.timeIntervalSince1970 - iat) <= maximumAge else { throw .keyBinding("iat is out of range") }
        guard claims["sd_hash"]?.stringValue == sdJWT.hashAlgorithm.digest(ofASCII: sdJWT.withoutKeyBinding) else {
            throw .keyBinding("sd_hash does not match the presentation")
        }
    }

    /// The holder's key: `cnf.jwk` of the issuer-signed JWT (RFC 7800).
    ///
    /// - Throws: ``SDJWTError/keyBinding(_:)`` when there is no usable `cnf.jwk`.
    public static func holderKey(of sdJWT: SDJWT) throws(SDJWTError) -> PublicKey {
        let payload: [String: JSONValue]
        do {
            payload = try sdJWT.issuerSignedJWT.payloadJSON()
        } catch {
            throw .jose(error)
        }
        guard let jwk = payload["cnf"]?["jwk"] else { throw .keyBinding("the issuer-signed JWT has no cnf.jwk") }
        do {
            return try JWK(json: jwk).publicKey()
        } catch {
            throw .keyBinding("cnf.jwk is not a usable key (\(error))")
        }
    }
}

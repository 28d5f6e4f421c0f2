import Base64
import Foundation
import JOSE
import MdocCrypto
import TestSupport
import Testing

@Suite struct JWKTests {
    /// The verifier encryption key of OpenID4VP 1.0 Appendix B.2.6.1.
    static let specJWK: JSONValue = [
        "kty": "EC", "crv": "P-256", "x": "DxiH5Q4Yx3UrukE2lWCErq8N8bqC9CHLLrAwLz5BmE0",
        "y": "XtLM4-3h5o3HUH0MHVJV0kyq0iBlrBwlh8qEDMZ4-Pc", "use": "enc", "alg": "ECDH-ES", "kid": "1",
    ]

    @Test func thumbprintMatchesTheOpenID4VPVector() throws {
        let jwk = try JWK(json: Self.specJWK)
        #expect(
            jwk.thumbprintInput
                == #"{"crv":"P-256","kty":"EC","x":"DxiH5Q4Yx3UrukE2lWCErq8N8bqC9CHLLrAwLz5BmE0","y":"XtLM4-3h5o3HUH0MHVJV0kyq0iBlrBwlh8qEDMZ4-Pc"}"#
        )
        #expect(jwk.thumbprint == Vectors.oid4vp("oid4vp1.0_redirect_jwk_thumbprint"))
        #expect(jwk.keyID == "1")
        #expect(jwk.use == "enc")
        #expect(jwk.algorithm == "ECDH-ES")
        #expect(!jwk.hasPrivateKey)
    }

    @Test func okpThumbprintHasNoY() throws {
        // RFC 8037 Appendix A.3: the Ed25519 example key's thumbprint.
        let jwk = try JWK(json: ["kty": "OKP", "crv": "Ed25519", "x": "11qYAYKxCrfVS_7TyWQHOg7hcvPapiMlrwIaaPcHURo"])
        #expect(
            jwk.thumbprintInput == #"{"crv":"Ed25519","kty":"OKP","x":"11qYAYKxCrfVS_7TyWQHOg7hcvPapiMlrwIaaPcHURo"}"#)
        #expect(Base64URL.encode(jwk.thumbprint) == "kPrK_qmxVWaYVA9wwBF6Iuo3vVzz7TxHCTwXBygrS4k")
    }

    @Test func readsAPrivateJWKAndItsKeys() throws {
        let json = try #require(
            Vectors.entry(Vectors.oid4vp, "iso18013-7_annexB_reader_ephemeral_private_jwk")["value"])
        let jwk = try JWK(jsonText: try jsonText(json))
        #expect(jwk.hasPrivateKey)
        #expect(jwk.curve == .p256)
        let key = try jwk.privateKey()
        #expect(key.publicKey == (try jwk.publicKey()))
        #expect(jwk.publicJWK.hasPrivateKey == false)
        #expect(jwk.json()["d"] == nil)
        #expect(jwk.json(includingPrivateKey: true)["d"] != nil)
        #expect(!jwk.description.contains(Base64URL.encode(jwk.x)))
    }

    @Test(arguments: [Curve.p256, .p384, .p521, .ed25519, .x25519, .x448, .ed448])
    func roundTripsThroughJSON(_ curve: Curve) throws {
        let key = try PrivateKey.generate(curve)
        let jwk = try JWK(privateKey: key, keyID: "k1")
        let back = try JWK(json: JSONValue(parsing: jwk.json(includingPrivateKey: true).serialized))
        #expect(back == jwk)
        #expect(try back.privateKey().publicKey == key.publicKey)
        #expect(try JWK(json: jwk.json()).publicKey() == key.publicKey)
    }

    @Test func refusesAPrivatePartOfAnotherKey() throws {
        var members = try #require(
            try JWK(privateKey: PrivateKey.generate(.p256)).json(includingPrivateKey: true).objectValue)
        members["d"] = try JWK(privateKey: PrivateKey.generate(.p256)).json(includingPrivateKey: true)["d"]
        #expect(throws: JOSEError.self) { try JWK(json: .object(members)) }
    }

    @Test func refusesBadKeys() throws {
        var offCurve = try #require(Self.specJWK.objectValue)
        offCurve["y"] = "DxiH5Q4Yx3UrukE2lWCErq8N8bqC9CHLLrAwLz5BmE0"
        #expect(throws: JOSEError.self) { try JWK(json: .object(offCurve)) }
        var shortX = try #require(Self.specJWK.objectValue)
        shortX["x"] = "AAAA"
        #expect(throws: JOSEError.self) { try JWK(json: .object(shortX)) }
        var rsa = try #require(Self.specJWK.objectValue)
        rsa["kty"] = "RSA"
        #expect(throws: JOSEError.unsupportedAlgorithm("JWK kty RSA")) { try JWK(json: .object(rsa)) }
        var brainpool = try #require(Self.specJWK.objectValue)
        brainpool["crv"] = "brainpoolP256r1"
        #expect(throws: JOSEError.self) { try JWK(json: .object(brainpool)) }
        var noY = try #require(Self.specJWK.objectValue)
        noY["y"] = nil
        #expect(throws: JOSEError.malformed("EC JWK has no y")) { try JWK(json: .object(noY)) }
        var padded = try #require(Self.specJWK.objectValue)
        padded["x"] = "DxiH5Q4Yx3UrukE2lWCErq8N8bqC9CHLLrAwLz5BmE0="
        #expect(throws: JOSEError.self) { try JWK(json: .object(padded)) }
        #expect(throws: JOSEError.self) { try JWK(json: "not an object") }
    }
}

/// The JSON text of a value read with JSONSerialization (vector files).
func jsonText(_ value: Any) throws -> String {
    String(decoding: try JSONSerialization.data(withJSONObject: value), as: UTF8.self)
}

import Base64
import Foundation
import JOSE
import MdocCrypto
import Testing

@testable import OpenID4VCI

@Suite struct ProofAndDPoPTests {
    @Test func aKeyProofCarriesTypeKeyAudienceNonceAndTime() throws {
        let key = try PrivateKey.generate(.p256)
        let time = Date(timeIntervalSince1970: 1_700_000_000)
        let compact = try KeyProof.make(
            publicKey: key.publicKey, audience: "https://issuer.example", nonce: "n-1", issuedAt: time
        ) { (input) throws(CryptoError) in try key.sign(input, algorithm: .es256) }
        let jws = try JWS(compact: compact)
        #expect(jws.type == "openid4vci-proof+jwt")
        #expect(jws.algorithm == .es256)
        #expect(try jws.headerJWK()?.publicKey() == key.publicKey)
        try jws.verify(with: key.publicKey)
        let claims = try jws.payloadJSON()
        #expect(claims["aud"] == "https://issuer.example")
        #expect(claims["nonce"] == "n-1")
        #expect(claims["iat"]?.intValue == 1_700_000_000)
        #expect(claims["iss"] == nil)
    }

    @Test func aDPoPProofBindsMethodURLTokenAndNonce() throws {
        let dpop = try DPoPKey()
        let proof = try dpop.proof(
            method: "POST", url: "https://issuer.example/credential?x=1#f", issuedAt: Date(timeIntervalSince1970: 5),
            accessToken: "tok", nonce: "server-nonce")
        let jws = try JWS(compact: proof)
        #expect(jws.type == "dpop+jwt")
        let jwk = try #require(try jws.headerJWK())
        try jws.verify(with: try jwk.publicKey())
        #expect(!jwk.hasPrivateKey)
        let claims = try jws.payloadJSON()
        #expect(claims["htm"] == "POST")
        #expect(claims["htu"] == "https://issuer.example/credential")
        #expect(claims["iat"]?.intValue == 5)
        #expect(claims["nonce"] == "server-nonce")
        // RFC 9449 section 4.2: ath = base64url(SHA-256("tok")).
        #expect(claims["ath"]?.stringValue == Base64URL.encode(Digest.sha256(Array("tok".utf8))))
        #expect((claims["jti"]?.stringValue?.count ?? 0) >= 16)
    }

    @Test func everyDPoPProofHasItsOwnJTI() throws {
        let dpop = try DPoPKey()
        let a = try JWS(compact: try dpop.proof(method: "POST", url: "https://a.example/t", issuedAt: Date()))
        let b = try JWS(compact: try dpop.proof(method: "POST", url: "https://a.example/t", issuedAt: Date()))
        #expect(try a.payloadJSON()["jti"] != b.payloadJSON()["jti"])
        #expect(try a.payloadJSON()["ath"] == nil)
    }

    @Test func aDPoPKeyNeverDescribesItsKey() throws {
        #expect(try DPoPKey().description == "DPoPKey(P-256)")
    }
}

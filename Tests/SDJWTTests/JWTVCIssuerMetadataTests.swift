import Foundation
import JOSE
import MdocCrypto
import Testing

@testable import SDJWT

/// JWT VC Issuer Metadata: the well-known URL built from `iss`, the document read strictly
/// (its issuer must be the `iss`, exactly one of jwks and jwks_uri), and the signature checked
/// with the published key the JWT's kid names.
struct JWTVCIssuerMetadataTests {
    @Test func theWellKnownPathGoesBetweenHostAndPath() {
        #expect(
            JWTVCIssuerMetadata.url(for: "https://issuer.example:8443/tenant/1/")
                == "https://issuer.example:8443/.well-known/jwt-vc-issuer/tenant/1")
        #expect(
            JWTVCIssuerMetadata.url(for: "https://issuer.example") == "https://issuer.example/.well-known/jwt-vc-issuer"
        )
        #expect(JWTVCIssuerMetadata.url(for: "http://issuer.example") == nil)
        #expect(JWTVCIssuerMetadata.url(for: "https://issuer.example/?q=1") == nil)
    }

    @Test func metadataForAnotherIssuerOrWithBothKeySourcesIsRefused() throws {
        let key = try JWK(publicKey: try PrivateKey.generate(.p256).publicKey, keyID: "k1").json()
        let other = JSONValue.object(["issuer": "https://other.example", "jwks": ["keys": [key]]]).serialized
        #expect(throws: SDJWTError.self) { try JWTVCIssuerMetadata(body: other, issuer: "https://issuer.example") }
        let both = JSONValue.object([
            "issuer": "https://issuer.example", "jwks": ["keys": [key]], "jwks_uri": "https://issuer.example/jwks",
        ]).serialized
        #expect(throws: SDJWTError.self) { try JWTVCIssuerMetadata(body: both, issuer: "https://issuer.example") }
        let inline = JSONValue.object(["issuer": "https://issuer.example/", "jwks": ["keys": [key]]]).serialized
        let metadata = try JWTVCIssuerMetadata(body: inline, issuer: "https://issuer.example")
        #expect(metadata.keys?.first?.keyID == "k1" && metadata.keysURL == nil)
    }

    @Test func theSignatureIsCheckedWithTheKeyTheKidNames() throws {
        let issuerKey = try PrivateKey.generate(.p256)
        let holderKey = try PrivateKey.generate(.p256)
        let compact = try SDJWTIssuance(
            claims: [
                "iss": "https://issuer.example", "vct": "urn:eudi:pid:1",
                "cnf": ["jwk": try JWK(publicKey: holderKey.publicKey).json()], "given_name": "Erika",
            ],
            selectivelyDisclosable: [ClaimPath(names: "given_name")]
        ).issue(header: ["kid": "k1"], key: issuerKey)
        let credential = try SDJWTVC(issued: compact)
        #expect(!credential.hasCertificateChain)
        let published = try JWK(publicKey: issuerKey.publicKey, keyID: "k1")
        let stranger = try JWK(publicKey: try PrivateKey.generate(.p256).publicKey, keyID: "k1")
        try credential.verifyIssuer(keys: [stranger, published])
        #expect(throws: SDJWTError.self) { try credential.verifyIssuer(keys: [stranger]) }
        let otherKid = try JWK(publicKey: issuerKey.publicKey, keyID: "k2")
        #expect(throws: SDJWTError.self) { try credential.verifyIssuer(keys: [otherKid]) }
    }
}

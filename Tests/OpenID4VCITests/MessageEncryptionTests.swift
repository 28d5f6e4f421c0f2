import Foundation
import JOSE
import MdocCrypto
import Testing

@testable import OpenID4VCI

@Suite struct MessageEncryptionTests {
    static func metadata(issuerKey: PrivateKey, responseRequired: Bool = true, responseEnc: String = "A256GCM") throws
        -> CredentialIssuerMetadata
    {
        var key = try JWK(publicKey: issuerKey.publicKey, keyID: "k1", use: "enc", algorithm: "ECDH-ES").json()
        key = .object(key.objectValue!)
        let json: JSONValue = [
            "credential_issuer": "https://issuer.example", "credential_endpoint": "https://issuer.example/credential",
            "credential_configurations_supported": ["mdl": ["format": "mso_mdoc", "doctype": "org.iso.18013.5.1.mDL"]],
            "credential_request_encryption": [
                "jwks": ["keys": [key]], "enc_values_supported": ["A128GCM"], "encryption_required": true,
            ],
            "credential_response_encryption": [
                "alg_values_supported": ["ECDH-ES"], "enc_values_supported": [.string(responseEnc)],
                "encryption_required": .bool(responseRequired),
            ],
        ]
        return try CredentialIssuerMetadata(body: json.serialized, issuer: "https://issuer.example")
    }

    @Test func theRequestGoesAsAJWEToTheIssuersKeyWithItsKid() throws {
        let issuerKey = try PrivateKey.generate(.p256)
        let encryption = try #require(try MessageEncryption(metadata: Self.metadata(issuerKey: issuerKey)))
        let (body, contentType) = try encryption.encode(Array(#"{"a":1}"#.utf8))
        #expect(contentType == "application/jwt")
        let jwe = try JWE(compact: String(decoding: body, as: UTF8.self))
        #expect(jwe.keyID == "k1")
        #expect(jwe.contentEncryption == .a128GCM)
        #expect(try jwe.decrypt(with: issuerKey) == Array(#"{"a":1}"#.utf8))
    }

    @Test func askingForAnEncryptedAnswerSendsAPublicKeyWithAlgAndTheEnc() throws {
        let encryption = try #require(
            try MessageEncryption(metadata: Self.metadata(issuerKey: try PrivateKey.generate(.p256))))
        let member = encryption.requestMember
        #expect(member["enc"] == "A256GCM")
        #expect(member["jwk"]?["alg"] == "ECDH-ES")
        #expect(member["jwk"]?["d"] == nil)
    }

    @Test func decryptsTheAnswerAndRefusesAnUnencryptedOne() throws {
        let encryption = try #require(
            try MessageEncryption(metadata: Self.metadata(issuerKey: try PrivateKey.generate(.p256))))
        let ours = try JWK(json: try #require(encryption.requestMember["jwk"]))
        let answer = try JWE.encrypt(Array(#"{"credentials":[]}"#.utf8), to: ours, encryption: .a256GCM)
        #expect(
            try encryption.decode(Array(answer.utf8), contentType: "application/jwt", endpoint: "e")
                == Array(#"{"credentials":[]}"#.utf8))
        #expect(throws: IssuanceError.self) {
            try encryption.decode(Array("{}".utf8), contentType: "application/json", endpoint: "e")
        }
        let otherEnc = try JWE.encrypt(Array("{}".utf8), to: ours, encryption: .a128GCM)
        #expect(throws: IssuanceError.self) {
            try encryption.decode(Array(otherEnc.utf8), contentType: "application/jwt", endpoint: "e")
        }
    }

    @Test func aResumedIssuanceTakesAnAnswerToTheEarlierResponseKey() throws {
        let metadata = try Self.metadata(issuerKey: try PrivateKey.generate(.p256))
        let first = try #require(try MessageEncryption(metadata: metadata))
        let kept = first.responseKeyToKeep
        let resumed = try #require(try MessageEncryption(metadata: metadata))
        let toFirst = try JWE.encrypt(
            Array("{}".utf8), to: try JWK(json: try #require(first.requestMember["jwk"])), encryption: .a256GCM)
        #expect(throws: IssuanceError.self) {
            try resumed.decode(Array(toFirst.utf8), contentType: "application/jwt", endpoint: "e")
        }
        let accepting = resumed.acceptingAnswers(toEarlierKeyOn: kept.curve) { (peer) throws(JOSEError) in
            do throws(CryptoError) { return try kept.sharedSecret(with: peer) } catch { throw .invalidKey("\(error)") }
        }
        #expect(
            try accepting.decode(Array(toFirst.utf8), contentType: "application/jwt", endpoint: "e") == Array("{}".utf8)
        )
        let toResumed = try JWE.encrypt(
            Array("[]".utf8), to: try JWK(json: try #require(resumed.requestMember["jwk"])), encryption: .a256GCM)
        #expect(
            try accepting.decode(Array(toResumed.utf8), contentType: "application/jwt", endpoint: "e")
                == Array("[]".utf8))
    }

    @Test func anIssuerRequiringAnEncThisHolderLacksIsRefused() throws {
        #expect(throws: IssuanceError.self) {
            try MessageEncryption(
                metadata: Self.metadata(issuerKey: try PrivateKey.generate(.p256), responseEnc: "XC20P"))
        }
        #expect(
            try MessageEncryption(
                metadata: Self.metadata(
                    issuerKey: try PrivateKey.generate(.p256), responseRequired: false, responseEnc: "XC20P"))
                == nil)
    }
}

import Base64
import Foundation
import JOSE
import MdocCrypto
import Testing

@testable import OpenID4VCI

/// Signed issuer metadata (OpenID4VCI 1.0 section 12.2.3) is used only when it verifies: the
/// JWT form (application/jwt) and the earlier `signed_metadata` member alike; a broken
/// signature, an untrusted chain, another `sub` or an expired `exp` refuse the issuer.
struct SignedIssuerMetadataTests {
    let issuer = "https://issuer.example/s/1"
    let now = Date()
    let signerKey: PrivateKey
    let anchor: Certificate
    let signer: Certificate

    init() throws {
        let caKey = try PrivateKey.generate(.p256)
        var ca = CertificateBuilder(
            subject: DistinguishedName(country: "UT", commonName: "Test IACA"), subjectPublicKey: caKey.publicKey,
            notBefore: now.addingTimeInterval(-3600), notAfter: now.addingTimeInterval(86_400))
        ca.basicConstraints = .certificateAuthority(pathLength: 0)
        ca.keyUsage = [.keyCertSign, .cRLSign]
        anchor = try ca.selfSigned(with: caKey)
        signerKey = try PrivateKey.generate(.p256)
        var leaf = CertificateBuilder(
            subject: DistinguishedName(country: "UT", commonName: "Test Issuer"), subjectPublicKey: signerKey.publicKey,
            notBefore: now.addingTimeInterval(-3600), notAfter: now.addingTimeInterval(86_400))
        leaf.basicConstraints = .endEntity
        leaf.keyUsage = [.digitalSignature]
        signer = try leaf.issued(by: anchor, issuerKey: caKey)
    }

    func members(name: String = "Signed DMV") -> [String: JSONValue] {
        [
            "credential_issuer": .string(issuer), "credential_endpoint": .string("\(issuer)/credential"),
            "display": [["name": .string(name), "locale": "en"]],
            "credential_configurations_supported": [
                "mdl": [
                    "format": "mso_mdoc", "doctype": "org.iso.18013.5.1.mDL",
                    "proof_types_supported": ["jwt": ["proof_signing_alg_values_supported": ["ES256"]]],
                ]
            ],
        ]
    }

    func signed(_ claims: [String: JSONValue], type: String = SignedIssuerMetadata.type) throws -> String {
        var claims = claims
        claims["sub"] = claims["sub"] ?? .string(issuer)
        claims["iat"] = claims["iat"] ?? .number(now.timeIntervalSince1970.rounded(.down))
        return try JWS.sign(
            payload: JSONValue.object(claims).serialized,
            header: ["typ": .string(type), "x5c": JWS.x5cHeader([signer])], key: signerKey)
    }

    func read(jwt: String, anchors: [Certificate]? = nil) throws(IssuanceError) -> CredentialIssuerMetadata {
        try SignedIssuerMetadata.metadata(
            body: Array(jwt.utf8), contentType: "application/jwt", issuer: issuer, trustAnchors: anchors ?? [anchor],
            at: now)
    }

    @Test func aVerifiedJWTGivesItsMetadataMarkedSigned() throws {
        let metadata = try read(jwt: try signed(members()))
        #expect(metadata.isSigned)
        #expect(metadata.displayName == "Signed DMV")
        #expect(metadata.credentialEndpoint == "\(issuer)/credential")
    }

    @Test func theSignedMemberOverridesTheUnsignedOnes() throws {
        var json = members(name: "Unsigned DMV")
        json["signed_metadata"] = .string(try signed(members(name: "Signed DMV")))
        let metadata = try SignedIssuerMetadata.metadata(
            body: JSONValue.object(json).serialized, contentType: "application/json", issuer: issuer,
            trustAnchors: [anchor], at: now)
        #expect(metadata.isSigned && metadata.displayName == "Signed DMV")
    }

    @Test func plainJSONIsReadUnsigned() throws {
        let metadata = try SignedIssuerMetadata.metadata(
            body: JSONValue.object(members()).serialized, contentType: "application/json", issuer: issuer,
            trustAnchors: [], at: now)
        #expect(!metadata.isSigned)
    }

    @Test func aChangedPayloadIsRefused() throws {
        let parts = try signed(members()).split(separator: ".").map(String.init)
        var changed = members()
        changed["credential_endpoint"] = "https://attacker.example/credential"
        changed["sub"] = .string(issuer)
        changed["iat"] = .number(now.timeIntervalSince1970.rounded(.down))
        let forged = [parts[0], Base64URL.encode(JSONValue.object(changed).serialized), parts[2]].joined(
            separator: ".")
        #expect(throws: IssuanceError.self) { try read(jwt: forged) }
        do {
            _ = try read(jwt: forged)
        } catch {
            #expect(error.description.contains("signature does not verify"))
        }
    }

    @Test func aChainToNoTrustAnchorIsRefusedSayingWhatToDo() throws {
        let other = try PrivateKey.generate(.p256)
        let stranger = try CertificateBuilder(
            subject: DistinguishedName(country: "UT", commonName: "Other CA"), subjectPublicKey: other.publicKey,
            notBefore: now.addingTimeInterval(-3600), notAfter: now.addingTimeInterval(86_400)
        ).selfSigned(with: other)
        do {
            _ = try read(jwt: try signed(members()), anchors: [stranger])
            Issue.record("an untrusted chain was accepted")
        } catch {
            #expect("\(error)".contains("not trusted") && "\(error)".contains("--trust-anchor"))
        }
    }

    @Test func anotherSubjectAWrongTypeOrAnExpiredJWTIsRefused() throws {
        var otherSubject = members()
        otherSubject["sub"] = "https://other.example"
        var expired = members()
        expired["exp"] = .number(now.timeIntervalSince1970 - 10)
        for jwt in [
            try signed(otherSubject), try signed(members(), type: "JWT"), try signed(expired),
        ] {
            #expect(throws: IssuanceError.self) { try read(jwt: jwt) }
        }
    }
}

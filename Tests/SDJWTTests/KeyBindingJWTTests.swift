import Foundation
import JOSE
import MdocCrypto
import SDJWT
import Testing

struct KeyBindingJWTTests {
    private let binding = KeyBindingJWT.Binding(
        audience: "x509_san_dns:verifier.example", nonce: "n-0S6_WzA2Mj",
        issuedAt: Date(timeIntervalSince1970: 1_800_000_000))

    private func present(_ sample: SampleSDJWT, signer: PrivateKey) throws -> String {
        let sdJWT = try SDJWT(compact: sample.compact)
        let needed = try sdJWT.processed().disclosuresNeeded(for: [ClaimPath(names: "family_name")])
        return try KeyBindingJWT.append(
            to: sdJWT.presentation(disclosing: needed), binding: binding, hashAlgorithm: sdJWT.hashAlgorithm,
            algorithm: .es256
        ) { try signer.sign($0, algorithm: .es256) }
    }

    /// The holder's Key Binding JWT carries typ kb+jwt, aud, nonce, iat and the sd_hash of
    /// exactly the presentation before it, and verifies with cnf.jwk.
    @Test func bindsThePresentationToTheVerifierAndNonce() throws {
        let sample = try SampleSDJWT()
        let presented = try SDJWT(compact: try present(sample, signer: sample.holderKey))
        let kb = try #require(presented.keyBindingJWT)
        #expect(kb.type == "kb+jwt")
        let claims = try kb.payloadJSON()
        #expect(claims["aud"] == "x509_san_dns:verifier.example")
        #expect(claims["nonce"] == "n-0S6_WzA2Mj")
        #expect(claims["iat"] == 1_800_000_000)
        #expect(claims["sd_hash"]?.stringValue == SDHashAlgorithm.sha256.digest(ofASCII: presented.withoutKeyBinding))
        try KeyBindingJWT.verify(
            presented, audience: binding.audience, nonce: binding.nonce, now: binding.issuedAt.addingTimeInterval(10))
    }

    @Test func verificationRefusesAnotherVerifierNonceKeyOrPresentation() throws {
        let sample = try SampleSDJWT()
        let now = binding.issuedAt
        let good = try present(sample, signer: sample.holderKey)
        let presented = try SDJWT(compact: good)
        func refusal(_ sdJWT: SDJWT, audience: String? = nil, nonce: String? = nil, at time: Date? = nil) -> String? {
            do {
                try KeyBindingJWT.verify(
                    sdJWT, audience: audience ?? binding.audience, nonce: nonce ?? binding.nonce, now: time ?? now)
                return nil
            } catch {
                return error.description
            }
        }
        #expect(refusal(presented) == nil)
        #expect(refusal(presented, audience: "x509_san_dns:other.example")?.contains("aud") == true)
        #expect(refusal(presented, nonce: "replayed")?.contains("nonce") == true)
        #expect(refusal(presented, at: now.addingTimeInterval(3600))?.contains("iat") == true)
        let otherKey = try SDJWT(compact: try present(sample, signer: try PrivateKey.generate(.p256)))
        #expect(refusal(otherKey)?.contains("signature") == true)
        // A Disclosure added after the holder signed changes the presentation sd_hash covers.
        let all = try SDJWT(compact: sample.compact)
        let extra = try #require(all.disclosures.first { $0.claimName == "birthdate" })
        let kb = try #require(presented.keyBindingJWT).compact
        let widened =
            SDJWT.serialize(
                issuerSignedJWT: presented.issuerSignedJWT.compact, disclosures: presented.disclosures + [extra]) + kb
        #expect(refusal(try SDJWT(compact: widened))?.contains("sd_hash") == true)
        #expect(refusal(all)?.contains("no Key Binding JWT") == true)
    }

    @Test func aPresentationMustEndWithATilde() throws {
        #expect(throws: SDJWTError.keyBinding("the presentation does not end with ~")) {
            _ = try KeyBindingJWT.append(
                to: "a.b.c", binding: binding, hashAlgorithm: .sha256, algorithm: .es256, sign: { $0 })
        }
    }
}

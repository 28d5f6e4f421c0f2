import Foundation
import JOSE
import MdocCrypto
import SDJWT
import TestSupport
import Testing

/// SD-JWTs made by the IETF reference library (PyPI `sd-jwt`, Tests/Support/make-sd-jwt-fixtures.py):
/// its JSON spacing, decoys, recursive and array Disclosures and Key Binding JWT read the
/// same here.
struct ReferenceLibraryInteropTests {
    private func fixture(_ name: String) throws -> String {
        let url = Vectors.fixtures.appendingPathComponent("sd-jwt").appendingPathComponent(name)
        return try String(contentsOf: url, encoding: .utf8).trimmingCharacters(in: .whitespacesAndNewlines)
    }

    private func key(_ name: String) throws -> JWK { try JWK(jsonText: try fixture(name)) }

    @Test func readsTheLibrarysIssuanceAsItsVerifierDoes() throws {
        let sdJWT = try SDJWT(compact: try fixture("pid.sd-jwt"))
        #expect(sdJWT.issuerSignedJWT.type == "dc+sd-jwt")
        try sdJWT.issuerSignedJWT.verify(with: try key("issuer.jwk.json").publicKey())
        let expected = try JSONValue(parsing: try fixture("pid.claims.json"))
        #expect(JSONValue.object(try sdJWT.processed().claims) == expected)
        #expect(try KeyBindingJWT.holderKey(of: sdJWT) == (try key("holder.jwk.json").publicKey()))
    }

    /// The library's holder presentation (with its Key Binding JWT) verifies here with the
    /// library's aud and nonce, and shows the claims its verifier saw.
    @Test func verifiesTheLibrarysPresentation() throws {
        let sdJWT = try SDJWT(compact: try fixture("pid.presentation.sd-jwt"))
        let expected = try JSONValue(parsing: try fixture("pid.presentation.json"))
        let aud = try #require(expected["aud"]?.stringValue)
        let nonce = try #require(expected["nonce"]?.stringValue)
        let kb = try #require(sdJWT.keyBindingJWT)
        let iat = try #require(try kb.payloadJSON()["iat"]?.numberValue)
        try KeyBindingJWT.verify(sdJWT, audience: aud, nonce: nonce, now: Date(timeIntervalSince1970: iat))
        #expect(JSONValue.object(try sdJWT.processed().claims) == expected["claims"])
    }

    /// Choosing by claims path from the library's issuance gives the same Disclosures its
    /// holder chose for the same claims.
    @Test func choosesTheDisclosuresTheLibraryChose() throws {
        let issued = try SDJWT(compact: try fixture("pid.sd-jwt"))
        let theirs = try SDJWT(compact: try fixture("pid.presentation.sd-jwt"))
        let needed = try issued.processed().disclosuresNeeded(for: [
            ClaimPath(names: "given_name"), ClaimPath(names: "address", "locality"),
            ClaimPath([.name("nationalities"), .index(1)]),
        ])
        let ours = try SDJWT(compact: issued.presentation(disclosing: needed))
        #expect(Set(ours.disclosures.map(\.encoded)) == Set(theirs.disclosures.map(\.encoded)))
        #expect(ours.withoutKeyBinding.count == theirs.withoutKeyBinding.count)
    }

    /// Our presentation of the library's issuance, bound with the holder key, verifies.
    @Test func bindsAPresentationOfTheLibrarysIssuance() throws {
        let issued = try SDJWT(compact: try fixture("pid.sd-jwt"))
        let holder = try key("holder.jwk.json").privateKey()
        let needed = try issued.processed().disclosuresNeeded(for: [ClaimPath(names: "age_equal_or_over", "18")])
        let now = Date()
        let presented = try KeyBindingJWT.append(
            to: issued.presentation(disclosing: needed),
            binding: .init(audience: "redirect_uri:https://rp.example/cb", nonce: "abc", issuedAt: now),
            hashAlgorithm: issued.hashAlgorithm, algorithm: .es256
        ) { try holder.sign($0, algorithm: .es256) }
        let sdJWT = try SDJWT(compact: presented)
        try KeyBindingJWT.verify(sdJWT, audience: "redirect_uri:https://rp.example/cb", nonce: "abc", now: now)
        #expect(try sdJWT.processed().claims["age_equal_or_over"] == ["18": true])
    }
}

import JOSE
import MdocCrypto
import SDJWT

/// A PID-like credential with flat, nested (recursive) and array Disclosures, signed by a
/// fresh issuer key, bound to a fresh holder key.
struct SampleSDJWT {
    let issuerKey: PrivateKey
    let holderKey: PrivateKey
    let claims: [String: JSONValue]
    let compact: String

    static let disclosable: Set<ClaimPath> = [
        ClaimPath(names: "given_name"),
        ClaimPath(names: "family_name"),
        ClaimPath(names: "birthdate"),
        ClaimPath(names: "address"),
        ClaimPath(names: "address", "street_address"),
        ClaimPath(names: "address", "locality"),
        ClaimPath([.name("nationalities"), .index(0)]),
        ClaimPath([.name("nationalities"), .index(1)]),
    ]

    init(hashAlgorithm: SDHashAlgorithm = .sha256) throws {
        issuerKey = try PrivateKey.generate(.p256)
        holderKey = try PrivateKey.generate(.p256)
        claims = [
            "iss": "https://issuer.example",
            "vct": "urn:eudi:pid:1",
            "iat": 1_700_000_000,
            "cnf": ["jwk": try JWK(publicKey: holderKey.publicKey).json()],
            "given_name": "Erika",
            "family_name": "Mustermann",
            "birthdate": "1964-08-12",
            "address": ["street_address": "Heidestraße 17", "locality": "Köln", "country": "DE"],
            "nationalities": ["DE", "FR"],
        ]
        compact = try SDJWTIssuance(
            claims: claims, selectivelyDisclosable: Self.disclosable, hashAlgorithm: hashAlgorithm
        ).issue(key: issuerKey)
    }
}

import JOSE
import SDJWT
import Testing

struct DisclosureSelectionTests {
    /// What a verifier sees of a presentation made for `paths`.
    private func verifierView(of sample: SampleSDJWT, for paths: [ClaimPath]) throws -> [String: JSONValue] {
        let sdJWT = try SDJWT(compact: sample.compact)
        let needed = try sdJWT.processed().disclosuresNeeded(for: paths)
        return try SDJWT(compact: sdJWT.presentation(disclosing: needed)).processed().claims
    }

    /// A nested claim brings the Disclosure of the object around it, and no sibling.
    @Test func aNestedClaimBringsItsParentAndNoSibling() throws {
        let sample = try SampleSDJWT()
        let seen = try verifierView(of: sample, for: [ClaimPath(names: "address", "locality")])
        #expect(seen["address"] == ["locality": "Köln", "country": "DE"])
        #expect(seen["given_name"] == nil)
    }

    /// A selected object is revealed whole, Disclosures inside it included.
    @Test func aSelectedObjectIsRevealedWhole() throws {
        let sample = try SampleSDJWT()
        let seen = try verifierView(of: sample, for: [ClaimPath(names: "address")])
        #expect(seen["address"] == sample.claims["address"])
    }

    /// `null` in a path selects every element of the array.
    @Test func aNullPathElementSelectsEveryArrayElement() throws {
        let sample = try SampleSDJWT()
        let all = try verifierView(of: sample, for: [try ClaimPath(json: ["nationalities", nil])])
        #expect(all["nationalities"] == ["DE", "FR"])
        let first = try verifierView(of: sample, for: [try ClaimPath(json: ["nationalities", 0])])
        #expect(first["nationalities"] == ["DE"])
    }

    /// Several paths at once, flat claims among them; claims without a Disclosure are always
    /// there, and a path to nothing adds nothing.
    @Test func severalPathsGiveExactlyTheirClaims() throws {
        let sample = try SampleSDJWT()
        let seen = try verifierView(
            of: sample,
            for: [ClaimPath(names: "given_name"), ClaimPath(names: "birthdate"), ClaimPath(names: "nickname")])
        #expect(
            seen == [
                "iss": "https://issuer.example", "vct": "urn:eudi:pid:1", "iat": 1_700_000_000,
                "cnf": sample.claims["cnf"]!, "given_name": "Erika", "birthdate": "1964-08-12", "nationalities": [],
            ])
    }

    @Test func resolvesPathsAndListsClaims() throws {
        let processed = try SDJWT(compact: try SampleSDJWT().compact).processed()
        #expect(processed.values(at: try ClaimPath(json: ["nationalities", nil])) == ["DE", "FR"])
        #expect(processed.values(at: ClaimPath(names: "address", "country")) == ["DE"])
        #expect(processed.values(at: ClaimPath(names: "address", "zip")) == [])
        let listed = Dictionary(
            uniqueKeysWithValues: processed.claimPaths.map { ($0.path.description, $0.selectivelyDisclosable) })
        #expect(listed["address.street_address"] == true)
        #expect(listed["address.country"] == false)
        #expect(listed["nationalities[1]"] == true)
        #expect(listed["vct"] == false)
    }

    @Test func readsClaimsPathPointers() throws {
        let path = try ClaimPath(json: ["degrees", nil, "type", 2])
        #expect(path.components == [.name("degrees"), .allElements, .name("type"), .index(2)])
        #expect(path.description == "degrees[*].type[2]")
        #expect(path.json == ["degrees", nil, "type", 2])
        for bad: [JSONValue] in [[], ["a", -1], ["a", 1.5], ["a", true], [["x": 1]]] {
            #expect(throws: SDJWTError.self) { _ = try ClaimPath(json: bad) }
        }
    }
}

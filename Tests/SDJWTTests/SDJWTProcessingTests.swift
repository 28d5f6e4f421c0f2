import JOSE
import MdocCrypto
import SDJWT
import Testing

struct SDJWTProcessingTests {
    /// With every Disclosure in place the claims read as issued: flat claims, an object whose
    /// members have Disclosures of their own inside a disclosed object, array elements.
    @Test func everyDisclosureInPlaceGivesTheIssuedClaims() throws {
        for algorithm in SDHashAlgorithm.allCases {
            let sample = try SampleSDJWT(hashAlgorithm: algorithm)
            let sdJWT = try SDJWT(compact: sample.compact)
            #expect(sdJWT.hashAlgorithm == algorithm)
            #expect(sdJWT.keyBindingJWT == nil)
            #expect(sdJWT.disclosures.count == SampleSDJWT.disclosable.count)
            try sdJWT.issuerSignedJWT.verify(with: sample.issuerKey.publicKey)
            let processed = try sdJWT.processed()
            #expect(processed.claims == sample.claims)
            #expect(Set(processed.disclosurePaths.values) == SampleSDJWT.disclosable)
            #expect(sdJWT.serialization == sample.compact)
        }
    }

    /// The payload itself shows none of the disclosable values.
    @Test func thePayloadHidesTheDisclosableClaims() throws {
        let sample = try SampleSDJWT()
        let payload = try JWS(compact: String(sample.compact.split(separator: "~")[0])).payloadJSON()
        #expect(payload["given_name"] == nil)
        #expect(payload["address"] == nil)
        #expect(payload["_sd"]?.arrayValue?.count == 4)
        // The array is always there; its elements are digests.
        #expect(payload["nationalities"]?.arrayValue?.compactMap { $0["..."]?.stringValue }.count == 2)
        #expect(payload["vct"] == "urn:eudi:pid:1")
    }

    /// Without a Disclosure the claim or element is simply absent: undisclosed array elements
    /// drop out, and the positions of the others close up.
    @Test func missingDisclosuresLeaveTheirClaimsOut() throws {
        let sample = try SampleSDJWT()
        let full = try SDJWT(compact: sample.compact)
        let processed = try full.processed()
        let keep = processed.disclosuresNeeded(for: [ClaimPath([.name("nationalities"), .index(1)])])
        let partial = try SDJWT(compact: full.presentation(disclosing: keep))
        let seen = try partial.processed().claims
        #expect(seen["nationalities"] == ["FR"])
        #expect(seen["given_name"] == nil)
        #expect(seen["address"] == nil)
        #expect(seen["vct"] == "urn:eudi:pid:1")
    }

    /// A changed Disclosure (same claim, another value) has a digest the payload does not hold.
    @Test func refusesAChangedDisclosure() throws {
        let sample = try SampleSDJWT()
        let sdJWT = try SDJWT(compact: sample.compact)
        let index = try #require(sdJWT.disclosures.firstIndex { $0.claimName == "birthdate" })
        let forged = Disclosure(salt: sdJWT.disclosures[index].salt, claimName: "birthdate", value: "2010-01-01")
        let tampered = sample.compact.replacingOccurrences(of: sdJWT.disclosures[index].encoded, with: forged.encoded)
        #expect(throws: SDJWTError.disclosureMismatch("disclosure \(index) is not referenced by any digest")) {
            _ = try SDJWT(compact: tampered).processed()
        }
    }

    /// A digest dropped from the signed payload leaves its Disclosure unreferenced.
    @Test func refusesADisclosureWhoseDigestIsNotInThePayload() throws {
        let sample = try SampleSDJWT()
        let sdJWT = try SDJWT(compact: sample.compact)
        var payload = try sdJWT.issuerSignedJWT.payloadJSON()
        let digests = try #require(payload["_sd"]?.arrayValue)
        payload["_sd"] = .array(Array(digests.dropFirst()))
        let resigned = try JWS.sign(payload: JSONValue.object(payload).serialized, key: sample.issuerKey)
        let compact = SDJWT.serialize(issuerSignedJWT: resigned, disclosures: sdJWT.disclosures)
        #expect {
            _ = try SDJWT(compact: compact).processed()
        } throws: { error in
            guard case .disclosureMismatch(let why) = error as? SDJWTError else { return false }
            return why.contains("not referenced")
        }
    }

    @Test func refusesTheSameDigestTwiceAndAClaimNamedTwice() throws {
        let key = try PrivateKey.generate(.p256)
        let disclosure = Disclosure(salt: "c2FsdC1zYWx0LXNhbHQ", claimName: "age", value: 42)
        let digest = JSONValue.string(disclosure.digest(.sha256))
        let twice: JSONValue = ["_sd": [digest], "nested": ["_sd": [digest]]]
        let clash: JSONValue = ["age": 41, "_sd": [digest]]
        for (payload, reason) in [(twice, "more than once"), (clash, "already present")] {
            let jwt = try JWS.sign(payload: payload.serialized, key: key)
            #expect {
                _ = try SDJWT(compact: SDJWT.serialize(issuerSignedJWT: jwt, disclosures: [disclosure])).processed()
            } throws: { error in
                guard case .disclosureMismatch(let why) = error as? SDJWTError else { return false }
                return why.contains(reason)
            }
        }
        #expect(throws: SDJWTError.disclosureMismatch("disclosure 1 appears twice")) {
            _ = try SDJWT(
                compact: SDJWT.serialize(
                    issuerSignedJWT: try JWS.sign(payload: twice.serialized, key: key),
                    disclosures: [disclosure, disclosure, disclosure]))
        }
    }

    /// An array-element Disclosure referenced from `_sd`, and a property Disclosure referenced
    /// as an array element, are refused.
    @Test func refusesADisclosureOfTheWrongKind() throws {
        let key = try PrivateKey.generate(.p256)
        let element = Disclosure(salt: "c2FsdC1zYWx0LXNhbHQ", claimName: nil, value: "DE")
        let property = Disclosure(salt: "c2FsdC1zYWx0LXNhbHQ", claimName: "age", value: 42)
        let cases: [(JSONValue, Disclosure, String)] = [
            (["_sd": [.string(element.digest(.sha256))]], element, "array-element disclosure"),
            (["list": [["...": .string(property.digest(.sha256))]]], property, "property disclosure"),
        ]
        for (payload, disclosure, reason) in cases {
            let jwt = try JWS.sign(payload: payload.serialized, key: key)
            #expect {
                _ = try SDJWT(compact: SDJWT.serialize(issuerSignedJWT: jwt, disclosures: [disclosure])).processed()
            } throws: { error in
                guard case .disclosureMismatch(let why) = error as? SDJWTError else { return false }
                return why.contains(reason)
            }
        }
    }

    /// Digests that match no Disclosure are decoys (or undisclosed claims) and are ignored.
    @Test func ignoresDecoyDigests() throws {
        let key = try PrivateKey.generate(.p256)
        let payload: JSONValue = ["_sd": ["decoy-digest-1"], "list": [["...": "decoy-digest-2"], "kept"]]
        let jwt = try JWS.sign(payload: payload.serialized, key: key)
        let claims = try SDJWT(compact: jwt + "~").processed().claims
        #expect(claims == ["list": ["kept"]])
    }

    @Test func refusesMalformedCompactForms() throws {
        let key = try PrivateKey.generate(.p256)
        let jwt = try JWS.sign(payload: JSONValue.object(["_sd_alg": "md5"]).serialized, key: key)
        #expect(throws: SDJWTError.unsupportedHashAlgorithm("md5")) { _ = try SDJWT(compact: jwt + "~") }
        let plain = try JWS.sign(payload: JSONValue.object([:]).serialized, key: key)
        #expect(throws: SDJWTError.malformed("no ~ after the issuer-signed JWT")) { _ = try SDJWT(compact: plain) }
        #expect(throws: SDJWTError.malformed("disclosure 0 is empty (two ~ in a row)")) {
            _ = try SDJWT(compact: plain + "~~")
        }
        #expect(throws: SDJWTError.self) { _ = try SDJWT(compact: "a.b~") }
    }
}

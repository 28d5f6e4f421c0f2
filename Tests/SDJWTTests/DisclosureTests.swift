import Base64
import JOSE
import SDJWT
import Testing

struct DisclosureTests {
    /// RFC 9901 section 4.2.1's object-property example: the digest is over the base64url text
    /// as written (its JSON has spaces after the commas), not over a re-encoding.
    @Test func hashesThePropertyDisclosureOfRFC9901AsWritten() throws {
        let disclosure = try Disclosure(
            encoded: "WyJfMjZiYzRMVC1hYzZxMktJNmNCVzVlcyIsICJmYW1pbHlfbmFtZSIsICJNw7ZiaXVzIl0")
        #expect(disclosure.salt == "_26bc4LT-ac6q2KI6cBW5es")
        #expect(disclosure.claimName == "family_name")
        #expect(disclosure.value == "Möbius")
        #expect(disclosure.digest(.sha256) == "X9yH0Ajrdm1Oij4tWso9UzzKJvPoDxwmuEcO3XAdRC0")
    }

    /// RFC 9901 section 4.2.2's array-element example: two elements, no claim name.
    @Test func hashesTheArrayElementDisclosureOfRFC9901AsWritten() throws {
        let disclosure = try Disclosure(encoded: "WyJsa2x4RjVqTVlsR1RQVW92TU5JdkNBIiwgIkZSIl0")
        #expect(disclosure.claimName == nil)
        #expect(disclosure.value == "FR")
        #expect(disclosure.digest(.sha256) == "w0I8EKcdCtUPkGCNUrfwVp2xEgNjtoIDlOxc9-PlOhs")
    }

    @Test func refusesReservedClaimNamesAndOtherShapes() {
        let cases: [(JSONValue, String)] = [
            (["salt", "_sd", 1], "reserved"),
            (["salt", "...", 1], "reserved"),
            (["salt"], "2 or 3"),
            (["salt", "a", 1, 2], "2 or 3"),
            ([1, "a", 1], "salt"),
            (["salt", 7, 1], "claim name"),
            (["salt": "x"], "array"),
        ]
        for (json, reason) in cases {
            let encoded = Base64URL.encode(json.serialized)
            #expect {
                _ = try Disclosure(encoded: encoded, index: 3)
            } throws: { error in
                guard case .invalidDisclosure(3, let why) = error as? SDJWTError else { return false }
                return why.contains(reason)
            }
        }
        #expect(throws: SDJWTError.self) { _ = try Disclosure(encoded: "not base64url!") }
        #expect(throws: SDJWTError.self) { _ = try Disclosure(encoded: Base64URL.encode(Array("[1,".utf8))) }
    }

    /// Made and read back: the same salt, name, value and digest.
    @Test func aMadeDisclosureReadsBack() throws {
        let made = Disclosure(salt: "c2FsdA", claimName: "address", value: ["locality": "Berlin"])
        let read = try Disclosure(encoded: made.encoded)
        #expect(read == made)
        #expect(read.digest(.sha384) == made.digest(.sha384))
        #expect(read.digest(.sha384) != read.digest(.sha256))
    }
}

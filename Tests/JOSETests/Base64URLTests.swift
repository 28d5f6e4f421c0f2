import Base64
import Foundation
import JOSE
import MdocCrypto
import Testing

struct Base64URLTests {
    /// The table encoder gives what Foundation's base64 gives after the URL-safe substitutions
    /// and without padding, for every length remainder, and decodes back.
    @Test func encodesAsFoundationsBase64WithTheURLSafeAlphabetAndNoPadding() {
        for count in Array(0...70) + [1000, 65_536, 65_537, 65_538] {
            let bytes = SecureRandom.bytes(count)
            let expected = Data(bytes).base64EncodedString()
                .replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_")
                .replacingOccurrences(of: "=", with: "")
            let encoded = Base64URL.encode(bytes)
            #expect(encoded == expected, "length \(count)")
            #expect(Base64URL.decode(encoded) == bytes, "length \(count)")
        }
        #expect(Base64URL.encode([0xFB, 0xFF]) == "-_8")
    }
}

import MdocCrypto
import TestSupport
import Testing

struct HKDFTests {
    @Test func matchesRFC5869TestCase1() throws {
        let okm = try HKDF.sha256(
            ikm: [UInt8](repeating: 0x0b, count: 22), salt: [UInt8](hex: "000102030405060708090a0b0c"),
            info: [UInt8](hex: "f0f1f2f3f4f5f6f7f8f9"), length: 42)
        #expect(okm.hex == "3cb25f25faacd57a90434f64d0362f2a2d2d0a90cf1a5a4c5db02d56ecc4c5bf34007208d5b887185865")
    }

    @Test func matchesRFC5869TestCase3WithEmptySaltAndInfo() throws {
        let okm = try HKDF.sha256(ikm: [UInt8](repeating: 0x0b, count: 22), salt: [], info: [], length: 42)
        #expect(okm.hex == "8da4e775a563c18f715f802a063c5a31b8a11f5c5ee1879ec3454e5f3c738d2d9d201395faa4b61a96c8")
    }

    @Test func emptySaltEqualsHashLenZeros() throws {
        let ikm = SecureRandom.bytes(32)
        let empty = try HKDF.sha256(ikm: ikm, salt: [], info: [1, 2], length: 32)
        let zeros = try HKDF.sha256(ikm: ikm, salt: [UInt8](repeating: 0, count: 32), info: [1, 2], length: 32)
        #expect(empty == zeros)
    }

    @Test func derivesTheISO18013SessionKeys() throws {
        let zab = SecretBytes([UInt8](hex: "6423502f843d8cda01fbd9fa46cb397534a740ab1ec3d1076fbcb12e1dca2589"))
        let salt = [UInt8](hex: "f823ac566e22b2106c9b7c02fadc7482e559a1de8a809b56c828779e6d67570e")
        let skReader = try HKDF.sha256(ikm: zab, salt: salt, info: Array("SKReader".utf8), length: 32)
        let skDevice = try HKDF.sha256(ikm: zab, salt: salt, info: Array("SKDevice".utf8), length: 32)
        #expect(skReader.bytes.hex == "58d277d8719e62a1561d248f403f477e9e6c37bf5d5fc5126f8f4c727c22dfc9")
        #expect(skDevice.bytes.hex == "81d170e07fbdac93c1a676242c2576124a380d87bb73ed9ce4834de2272cf409")
        #expect(skReader.bytes == Vectors.annexD("SKReader"))
        #expect(skDevice.bytes == Vectors.annexD("SKDevice"))
    }

    @Test func derivesTheAnnexDEMacKey() throws {
        let emacKey = try HKDF.sha256(
            ikm: Vectors.annexD("EMacKey_ZAB"), salt: Vectors.annexD("SessionTranscript_salt_SHA256"),
            info: Array("EMacKey".utf8), length: 32)
        #expect(emacKey == Vectors.annexD("EMacKey"))
    }

    @Test func acceptsAnEmptyInputKey() throws {
        #expect(try HKDF.sha256(ikm: [], salt: [], info: [], length: 32).count == 32)
    }

    @Test func rejectsOutputLengthsOutsideRFC5869Limits() {
        for length in [0, -1, 255 * 32 + 1] {
            #expect(throws: CryptoError.self) { try HKDF.sha256(ikm: [1], salt: [], info: [], length: length) }
        }
        #expect((try? HKDF.sha256(ikm: [1], salt: [], info: [], length: 255 * 32))?.count == 255 * 32)
    }
}

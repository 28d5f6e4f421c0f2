import MdocCrypto
import TestSupport
import Testing

struct DigestAndHMACTests {
    @Test func shaDigestsOfABCMatchFIPS180Examples() {
        let abc = Array("abc".utf8)
        #expect(Digest.sha256(abc).hex == "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad")
        #expect(
            Digest.hash(abc, algorithm: .sha384).hex
                == "cb00753f45a35e8bb5a03d699ac65007272c32ab0eded1631a8b605a43ff5bed8086072ba1e7cc2358baeca134c825a7")
        #expect(
            Digest.hash(abc, algorithm: .sha512).hex
                == "ddaf35a193617abacc417349ae20413112e6fa4e89a97ea20a9eeee64b55d39a"
                + "2192992a274fc1a836ba3c23a3feebbd454d4423643ce80e2a9ac94fa54ca49f")
    }

    @Test func digestOfEmptyInputIsTheKnownValue() {
        #expect(Digest.sha256([]).hex == "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855")
        for algorithm in DigestAlgorithm.allCases {
            #expect(Digest.hash([], algorithm: algorithm).count == algorithm.outputSize)
        }
    }

    @Test func hmacSHA256MatchesRFC4231TestCase2() {
        let expected = "5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843"
        let data = Array("what do ya want for nothing?".utf8)
        #expect(HMAC.sha256(key: Array("Jefe".utf8), data: data).hex == expected)
        #expect(HMAC.sha256(key: SecretBytes(Array("Jefe".utf8)), data: data).hex == expected)
    }

    @Test func hmacSHA256MatchesRFC4231TestCase1() {
        let mac = HMAC.sha256(key: [UInt8](repeating: 0x0b, count: 20), data: Array("Hi There".utf8))
        #expect(mac.hex == "b0344c61d8db38535ca8afceaf0bf12b881dc200c9833da726e9376c2e32cff7")
    }

    @Test func hmacAcceptsEmptyKeyAndData() {
        // HMAC-SHA256("", "") is a well-known constant.
        #expect(
            HMAC.sha256(key: [], data: []).hex == "b613679a0814d9ec772f95d778c35fc5ff1697c493715653c6c712144292c5ad")
    }

    @Test func secureRandomGivesTheRequestedCountAndVaries() {
        #expect(SecureRandom.bytes(0).isEmpty)
        let a = SecureRandom.bytes(32)
        let b = SecureRandom.bytes(32)
        #expect(a.count == 32)
        #expect(a != b)
    }
}

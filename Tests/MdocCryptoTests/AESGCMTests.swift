import MdocCrypto
import TestSupport
import Testing

struct AESGCMTests {
    // McGrew & Viega, "The Galois/Counter Mode of Operation", test cases 13-16 (AES-256).
    static let key15 = SecretBytes([UInt8](hex: "feffe9928665731c6d6a8f9467308308feffe9928665731c6d6a8f9467308308"))
    static let iv15 = [UInt8](hex: "cafebabefacedbaddecaf888")
    static let plaintext15 = [UInt8](
        hex: "d9313225f88406e5a55909c5aff5269a86a7a9531534f7da2e4c303d8a318a72"
            + "1c3c0c95956809532fcf0e2449a6b525b16aedf5aa0de657ba637b391aafd255")
    static let ciphertext15 =
        "522dc1f099567d07f47f37a32a84427d643a8cdcbfe5c0c97598a2bd2555d1aa"
        + "8cb08e48590dbb3da7b08b1056828838c5f61e6393ba7a0abcc9f662898015ad"

    @Test func matchesGCMSpecTestCase14EmptyInputsZeroKey() throws {
        let key = SecretBytes([UInt8](repeating: 0, count: 32))
        let sealed = try AESGCM.seal([UInt8](repeating: 0, count: 16), key: key, iv: [UInt8](repeating: 0, count: 12))
        #expect(sealed.hex == "cea7403d4d606b6e074ec5d3baf39d18" + "d0d1c8a799996bf0265b98b5d48ab919")
    }

    @Test func matchesGCMSpecTestCase15() throws {
        let sealed = try AESGCM.seal(Self.plaintext15, key: Self.key15, iv: Self.iv15)
        #expect(sealed.hex == Self.ciphertext15 + "b094dac5d93471bdec1a502270e3cc6c")
        #expect(try AESGCM.open(sealed, key: Self.key15, iv: Self.iv15) == Self.plaintext15)
    }

    @Test func matchesGCMSpecTestCase16WithAAD() throws {
        let aad = [UInt8](hex: "feedfacedeadbeeffeedfacedeadbeefabaddad2")
        let plaintext = Array(Self.plaintext15.prefix(60))
        let sealed = try AESGCM.seal(plaintext, key: Self.key15, iv: Self.iv15, aad: aad)
        #expect(sealed.hex == String(Self.ciphertext15.prefix(120)) + "76fc6ece0f4e1768cddf8853bb2d551b")
        #expect(try AESGCM.open(sealed, key: Self.key15, iv: Self.iv15, aad: aad) == plaintext)
        #expect(throws: CryptoError.decryptionFailed) { try AESGCM.open(sealed, key: Self.key15, iv: Self.iv15) }
    }

    @Test(arguments: [16, 24, 32])
    func roundTripsWithEveryKeySize(_ keySize: Int) throws {
        let key = SecretBytes(SecureRandom.bytes(keySize))
        let iv = SecureRandom.bytes(12)
        for length in [0, 1, 15, 16, 17, 1000] {
            let plaintext = SecureRandom.bytes(length)
            let sealed = try AESGCM.seal(plaintext, key: key, iv: iv, aad: [1, 2, 3])
            #expect(sealed.count == length + 16)
            #expect(try AESGCM.open(sealed, key: key, iv: iv, aad: [1, 2, 3]) == plaintext)
        }
    }

    @Test func tamperedTagOrCiphertextFailsAuthentication() throws {
        let sealed = try AESGCM.seal(Self.plaintext15, key: Self.key15, iv: Self.iv15)
        for index in [0, 31, sealed.count - 16, sealed.count - 1] {
            var tampered = sealed
            tampered[index] ^= 0x01
            #expect(throws: CryptoError.decryptionFailed) { try AESGCM.open(tampered, key: Self.key15, iv: Self.iv15) }
        }
        var otherIV = Self.iv15
        otherIV[11] ^= 1
        #expect(throws: CryptoError.decryptionFailed) { try AESGCM.open(sealed, key: Self.key15, iv: otherIV) }
        let otherKey = SecretBytes(SecureRandom.bytes(32))
        #expect(throws: CryptoError.decryptionFailed) { try AESGCM.open(sealed, key: otherKey, iv: Self.iv15) }
    }

    @Test func inputShorterThanATagFailsAuthentication() {
        #expect(throws: CryptoError.decryptionFailed) { try AESGCM.open([1, 2, 3], key: Self.key15, iv: Self.iv15) }
        #expect(throws: CryptoError.decryptionFailed) { try AESGCM.open([], key: Self.key15, iv: Self.iv15) }
    }

    @Test func rejectsBadKeyAndIVLengths() {
        let shortKey = SecretBytes([UInt8](repeating: 1, count: 20))
        #expect(throws: CryptoError.invalidLength("AES-GCM key must be 16, 24 or 32 bytes, not 20")) {
            try AESGCM.seal([1], key: shortKey, iv: Self.iv15)
        }
        #expect(throws: CryptoError.invalidLength("AES-GCM IV must be 12 bytes, not 16")) {
            try AESGCM.seal([1], key: Self.key15, iv: [UInt8](repeating: 0, count: 16))
        }
        #expect(throws: CryptoError.invalidLength("AES-GCM IV must be 12 bytes, not 8")) {
            try AESGCM.open([UInt8](repeating: 0, count: 32), key: Self.key15, iv: [UInt8](repeating: 0, count: 8))
        }
    }
}

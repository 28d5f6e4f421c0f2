import MdocCrypto
import Testing

struct SecretBytesAndErrorTests {
    @Test func secretBytesCopiesInAndOut() {
        var source: [UInt8] = [1, 2, 3]
        let secret = SecretBytes(source)
        source[0] = 9
        #expect(secret.bytes == [1, 2, 3])
        #expect(secret.count == 3)
        var copy = secret.bytes
        copy[1] = 9
        #expect(secret.bytes == [1, 2, 3])
        #expect(secret.withUnsafeBytes { Array($0) } == [1, 2, 3])
        #expect(SecretBytes([]).count == 0)
    }

    @Test func errorDescriptionsSayWhatFailed() {
        #expect(CryptoError.decryptionFailed.description == "decryption failed: authentication tag mismatch")
        #expect(
            CryptoError.invalidKey("point not on curve P-256").description == "invalid key: point not on curve P-256")
        #expect(
            CryptoError.openssl(operation: "EVP_PKEY_derive", reason: "x").description
                == "OpenSSL EVP_PKEY_derive failed: x")
    }

    @Test func keysAndResultsCrossConcurrencyDomains() async throws {
        let key = try PrivateKey.generate(.p256)
        let signatures = await withTaskGroup(of: Bool.self) { group in
            for i in 0..<16 {
                group.addTask {
                    let message: [UInt8] = [UInt8(i)]
                    guard let signature = try? key.sign(message, algorithm: .es256) else { return false }
                    return key.publicKey.isValidSignature(signature, for: message, algorithm: .es256)
                }
            }
            return await group.reduce(into: [Bool]()) { $0.append($1) }
        }
        #expect(signatures.count == 16 && signatures.allSatisfy { $0 })
    }
}

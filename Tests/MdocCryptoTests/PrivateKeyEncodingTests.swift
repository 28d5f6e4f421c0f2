import Foundation
import MdocCrypto
import TestSupport
import Testing

struct PrivateKeyEncodingTests {
    @Test(arguments: Curve.allCases)
    func pkcs8PEMRoundTripsOnEveryCurve(_ curve: Curve) throws {
        let key = try PrivateKey.generate(curve)
        let pem = try key.pkcs8PEM()
        #expect(pem.hasPrefix("-----BEGIN PRIVATE KEY-----\n"))
        let imported = try PrivateKey(pem: pem)
        #expect(imported.curve == curve)
        #expect(imported.publicKey == key.publicKey)
        #expect(try imported.rawPrivateKey().bytes == key.rawPrivateKey().bytes)
    }

    @Test(arguments: Curve.allCases)
    func pkcs8DERAndRawPrivateKeyRoundTrip(_ curve: Curve) throws {
        let key = try PrivateKey.generate(curve)
        let imported = try PrivateKey(pkcs8DER: key.pkcs8DER())
        #expect(imported.publicKey == key.publicKey)
        let raw = try key.rawPrivateKey()
        #expect(raw.count == curve.coordinateSize)
        #expect(try PrivateKey(curve: curve, rawPrivateKey: raw.bytes).publicKey == key.publicKey)
    }

    @Test func traditionalECPrivateKeyPEMIsImported() throws {
        let key = try PrivateKey(pem: Fixtures.traditionalECPrivateKeyPEM)
        #expect(key.curve == .p256)
        #expect(try key.rawPrivateKey().bytes.hex == Fixtures.traditionalECPrivateKeyD)
        #expect(key.publicKey.x.hex == Fixtures.traditionalECPublicX)
        #expect(key.publicKey.y?.hex == Fixtures.traditionalECPublicY)
        let signature = try key.sign([1, 2, 3], algorithm: .es256)
        #expect(key.publicKey.isValidSignature(signature, for: [1, 2, 3], algorithm: .es256))
    }

    @Test func privateKeyWhosePublicPartDoesNotMatchIsRejected() throws {
        // The traditional key's DER ends with its public point 04||x||y; put another key's point there.
        let base64 = Fixtures.traditionalECPrivateKeyPEM.split(separator: "\n").filter { !$0.hasPrefix("-----") }
            .joined()
        var der = [UInt8](try #require(Data(base64Encoded: base64)))
        #expect(der.suffix(64).hex == Fixtures.traditionalECPublicX + Fixtures.traditionalECPublicY)
        let other = try PrivateKey.generate(.p256).publicKey
        der.replaceSubrange((der.count - 64)..., with: other.x + other.y!)
        #expect(throws: CryptoError.invalidKey("the P-256 public key does not match the private key")) {
            try PrivateKey(pkcs8DER: der)
        }
    }

    @Test func shortScalarsAreLeftPadded() throws {
        let padded = try PrivateKey(curve: .p256, rawPrivateKey: [UInt8](repeating: 0, count: 31) + [5])
        let short = try PrivateKey(curve: .p256, rawPrivateKey: [5])
        #expect(padded.publicKey == short.publicKey)
        #expect(try short.rawPrivateKey().bytes == [UInt8](repeating: 0, count: 31) + [5])
    }

    @Test func outOfRangeOrWrongLengthScalarsAreRejected() {
        let order = [UInt8](hex: "ffffffff00000000ffffffffffffffffbce6faada7179e84f3b9cac2fc632551")
        #expect(throws: CryptoError.invalidKey("the private scalar is not in [1, n-1] for P-256")) {
            try PrivateKey(curve: .p256, rawPrivateKey: order)
        }
        #expect(throws: CryptoError.self) {
            try PrivateKey(curve: .p256, rawPrivateKey: [UInt8](repeating: 0, count: 32))
        }
        #expect(throws: CryptoError.self) {
            try PrivateKey(curve: .p256, rawPrivateKey: [UInt8](repeating: 1, count: 33))
        }
        #expect(throws: CryptoError.self) { try PrivateKey(curve: .p256, rawPrivateKey: []) }
        #expect(throws: CryptoError.self) {
            try PrivateKey(curve: .x25519, rawPrivateKey: [UInt8](repeating: 1, count: 31))
        }
    }

    @Test func malformedPrivateKeyInputsAreRejectedWithoutEchoingThem() {
        let pem = "-----BEGIN PRIVATE KEY-----\nTUlJQ0VDUkVU\n-----END PRIVATE KEY-----\n"
        do {
            _ = try PrivateKey(pem: pem)
            Issue.record("expected an error")
        } catch {
            #expect(!error.description.contains("TUlJQ0VDUkVU"))
        }
        #expect(throws: CryptoError.self) { try PrivateKey(pem: "") }
        #expect(throws: CryptoError.self) { try PrivateKey(pkcs8DER: [0x30, 0x00]) }
        // A public key is not a private key.
        #expect(throws: CryptoError.self) { try PrivateKey(pem: PrivateKey.generate(.p256).publicKey.pem) }
    }

    @Test func encryptedPEMIsRefusedWithoutPrompting() {
        // A real PKCS#8 EncryptedPrivateKeyInfo (AES-256, passphrase "test", made once with
        // `openssl genpkey -aes256`): must fail, never read a passphrase from the terminal.
        let encrypted = """
            -----BEGIN ENCRYPTED PRIVATE KEY-----
            MIHsMFcGCSqGSIb3DQEFDTBKMCkGCSqGSIb3DQEFDDAcBAifJWy3oZpvDAICCAAw
            DAYIKoZIhvcNAgkFADAdBglghkgBZQMEASoEEJPm00xpPd92Xm607q6iSHkEgZBQ
            wLMxIu4Rav5+KUj1A8pLgEllRClSaKSLNSWAiRy2aU+J+7kCWUsl4x5Epbk8tWnt
            NHtpQQXT3sEeNCFvA3O7WBnYpT/2br7lZubgXdxYIEJLillGOJ4T168/R5IkNth6
            Qcm5wuXNog5fc1DrmJE1STLfA2dRLFwnxANIEl3aJ4kS2CNaRRdYuSHNNVKU200=
            -----END ENCRYPTED PRIVATE KEY-----
            """
        #expect(throws: CryptoError.self) { try PrivateKey(pem: encrypted) }
    }

    @Test func descriptionsNeverContainKeyMaterial() throws {
        let key = try PrivateKey(pem: Fixtures.traditionalECPrivateKeyPEM)
        #expect(key.description == "PrivateKey(P-256)")
        let secret = try key.rawPrivateKey()
        #expect(secret.description == "SecretBytes(32 bytes)")
        #expect(!"\(secret)".contains(Fixtures.traditionalECPrivateKeyD))
    }
}

import MdocCrypto
import TestSupport
import Testing

struct KeyAgreementTests {
    static let keyAgreementCurves = Curve.allCases.filter(\.supportsKeyAgreement)

    @Test(arguments: keyAgreementCurves)
    func generatedKeysAgreeOnASecretOfTheFieldSize(_ curve: Curve) throws {
        let a = try PrivateKey.generate(curve)
        let b = try PrivateKey.generate(curve)
        let ab = try a.sharedSecret(with: b.publicKey)
        let ba = try b.sharedSecret(with: a.publicKey)
        #expect(ab.bytes == ba.bytes)
        #expect(ab.count == curve.coordinateSize)
        #expect(ab.bytes != [UInt8](repeating: 0, count: ab.count))
    }

    @Test func p256MatchesTheISO18013AnnexDSharedSecret() throws {
        let device = try PrivateKey(
            curve: .p256,
            rawPrivateKey: [UInt8](hex: "c1917a1579949a042f1ba9fc53a2df9b1bc47adf31c10f813ed75702d1c1f136"))
        let reader = try PublicKey(
            curve: .p256,
            x: [UInt8](hex: "60e3392385041f51403051f2415531cb56dd3f999c71687013aac6768bc8187e"),
            y: [UInt8](hex: "e58deb8fdbe907f7dd5368245551a34796f7d2215c440c339bb0f7b67beccdfa"))
        let secret = try device.sharedSecret(with: reader)
        #expect(secret.bytes.hex == "6423502f843d8cda01fbd9fa46cb397534a740ab1ec3d1076fbcb12e1dca2589")
        #expect(device.publicKey.x.hex == "5a88d182bce5f42efa59943f33359d2e8a968ff289d93e5fa444b624343167fe")
        #expect(device.publicKey.y?.hex == "b16e8cf858ddc7690407ba61d4c338237a8cfcf3de6aa672fc60a557aa32fc67")
    }

    @Test func annexDReaderSideAndMacKeyAgreementMatch() throws {
        let reader = try PrivateKey(curve: .p256, rawPrivateKey: Vectors.annexD("EReaderKey_private_d"))
        #expect(reader.publicKey.x == Vectors.annexD("EReaderKey_x"))
        #expect(reader.publicKey.y == Vectors.annexD("EReaderKey_y"))
        let device = try PublicKey(curve: .p256, x: Vectors.annexD("EDeviceKey_x"), y: Vectors.annexD("EDeviceKey_y"))
        #expect(
            try reader.sharedSecret(with: device).bytes == Vectors.annexD("ZAB_shared_secret_EDeviceKey_EReaderKey"))

        let staticDevice = try PrivateKey(curve: .p256, rawPrivateKey: Vectors.annexD("SDeviceKey_private_d"))
        #expect(staticDevice.publicKey.x == Vectors.annexD("SDeviceKey_x"))
        #expect(try staticDevice.sharedSecret(with: reader.publicKey).bytes == Vectors.annexD("EMacKey_ZAB"))
    }

    @Test func x25519MatchesRFC7748Section61() throws {
        let alice = try PrivateKey(
            curve: .x25519,
            rawPrivateKey: [UInt8](hex: "77076d0a7318a57d3c16c17251b26645df4c2f87ebc0992ab177fba51db92c2a"))
        let bob = try PrivateKey(
            curve: .x25519,
            rawPrivateKey: [UInt8](hex: "5dab087e624a8a4b79e17f8b83800ee66f3bb1292618b6fd1c2f8b27ff88e0eb"))
        #expect(alice.publicKey.x.hex == "8520f0098930a754748b7ddcb43ef75a0dbf3a0d26381af4eba4a98eaa9b4e6a")
        #expect(bob.publicKey.x.hex == "de9edb7d7b7dc1b4d35b61c2ece435373f8343c85b78674dadfc7e146f882b4f")
        #expect(alice.publicKey.y == nil)
        let bobPublic = try PublicKey(
            curve: .x25519, raw: [UInt8](hex: "de9edb7d7b7dc1b4d35b61c2ece435373f8343c85b78674dadfc7e146f882b4f"))
        let expected = "4a5d9d5ba4ce2de1728e3bf480350f25e07e21c947d19e3376f09b3c1e161742"
        #expect(try alice.sharedSecret(with: bobPublic).bytes.hex == expected)
        #expect(try bob.sharedSecret(with: alice.publicKey).bytes.hex == expected)
    }

    @Test func x25519RejectsALowOrderPeerGivingAZeroSecret() throws {
        let key = try PrivateKey.generate(.x25519)
        let zeroPoint = try PublicKey(curve: .x25519, raw: [UInt8](repeating: 0, count: 32))
        #expect(throws: CryptoError.self) { try key.sharedSecret(with: zeroPoint) }
    }

    @Test func peersOnAnotherCurveAreRejected() throws {
        let p256 = try PrivateKey.generate(.p256)
        let p384 = try PrivateKey.generate(.p384)
        #expect(throws: CryptoError.invalidKey("the peer key is on P-384, not P-256")) {
            try p256.sharedSecret(with: p384.publicKey)
        }
    }

    @Test func edwardsKeysCannotDoKeyAgreement() throws {
        let ed = try PrivateKey.generate(.ed25519)
        let other = try PrivateKey.generate(.ed25519)
        #expect(throws: CryptoError.self) { try ed.sharedSecret(with: other.publicKey) }
    }
}

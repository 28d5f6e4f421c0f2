import MdocCrypto
import TestSupport
import Testing

struct SignatureTests {
    struct Case: Sendable, CustomTestStringConvertible {
        let curve: Curve
        let algorithm: SignatureAlgorithm
        let signatureSize: Int
        var testDescription: String { "\(curve.rawValue) \(algorithm)" }
    }

    static let cases: [Case] = [
        Case(curve: .p256, algorithm: .es256, signatureSize: 64),
        Case(curve: .p384, algorithm: .es384, signatureSize: 96),
        Case(curve: .p521, algorithm: .es512, signatureSize: 132),
        Case(curve: .brainpoolP256r1, algorithm: .es256, signatureSize: 64),
        Case(curve: .brainpoolP320r1, algorithm: .es384, signatureSize: 80),
        Case(curve: .brainpoolP384r1, algorithm: .es384, signatureSize: 96),
        Case(curve: .brainpoolP512r1, algorithm: .es512, signatureSize: 128),
        Case(curve: .ed25519, algorithm: .edDSA, signatureSize: 64),
        Case(curve: .ed448, algorithm: .edDSA, signatureSize: 114),
    ]

    @Test(arguments: cases)
    func signaturesVerifyAndHaveTheCOSESize(_ c: Case) throws {
        let key = try PrivateKey.generate(c.curve)
        let message = Array("ISO/IEC 18013-5 mdoc".utf8)
        let signature = try key.sign(message, algorithm: c.algorithm)
        #expect(signature.count == c.signatureSize)
        #expect(key.publicKey.isValidSignature(signature, for: message, algorithm: c.algorithm))
    }

    @Test(arguments: cases)
    func modifiedMessageOrSignatureFailsVerification(_ c: Case) throws {
        let key = try PrivateKey.generate(c.curve)
        let message = Array("ISO/IEC 18013-5 mdoc".utf8)
        let signature = try key.sign(message, algorithm: c.algorithm)
        var otherMessage = message
        otherMessage[0] ^= 1
        #expect(!key.publicKey.isValidSignature(signature, for: otherMessage, algorithm: c.algorithm))
        for index in [0, signature.count / 2, signature.count - 1] {
            var tampered = signature
            tampered[index] ^= 0x80
            #expect(!key.publicKey.isValidSignature(tampered, for: message, algorithm: c.algorithm))
        }
        let otherKey = try PrivateKey.generate(c.curve)
        #expect(!otherKey.publicKey.isValidSignature(signature, for: message, algorithm: c.algorithm))
    }

    @Test(arguments: cases)
    func signaturesOfTheWrongLengthAreFalseNotErrors(_ c: Case) throws {
        let key = try PrivateKey.generate(c.curve)
        let signature = try key.sign([1, 2, 3], algorithm: c.algorithm)
        #expect(!key.publicKey.isValidSignature(Array(signature.dropLast()), for: [1, 2, 3], algorithm: c.algorithm))
        #expect(!key.publicKey.isValidSignature(signature + [0], for: [1, 2, 3], algorithm: c.algorithm))
        #expect(!key.publicKey.isValidSignature([], for: [1, 2, 3], algorithm: c.algorithm))
    }

    @Test func emptyMessagesCanBeSignedAndVerified() throws {
        for c in Self.cases {
            let key = try PrivateKey.generate(c.curve)
            let signature = try key.sign([], algorithm: c.algorithm)
            #expect(key.publicKey.isValidSignature(signature, for: [], algorithm: c.algorithm))
        }
    }

    @Test func derEncodedECDSASignaturesAreNotAccepted() throws {
        // A DER ECDSA-Sig-Value is never exactly 64 bytes for P-256 with short r, s; a raw-sized
        // buffer holding DER must also fail rather than be reinterpreted.
        let key = try PrivateKey.generate(.p256)
        let raw = try key.sign([9], algorithm: .es256)
        let der = [0x30, 0x44, 0x02, 0x20] + raw.prefix(32) + [0x02, 0x20] + raw.suffix(32)
        #expect(!key.publicKey.isValidSignature(der, for: [9], algorithm: .es256))
    }

    @Test func ecdsaSignatureWithAnotherHashFailsVerification() throws {
        let key = try PrivateKey.generate(.p256)
        let signature = try key.sign([1], algorithm: .es256)
        #expect(
            !key.publicKey.isValidSignature(signature + [UInt8](repeating: 0, count: 32), for: [1], algorithm: .es384))
        let p384 = try PrivateKey.generate(.p384)
        let es256 = try p384.sign([1], algorithm: .es256)
        #expect(p384.publicKey.isValidSignature(es256, for: [1], algorithm: .es256))
        #expect(!p384.publicKey.isValidSignature(es256, for: [1], algorithm: .es384))
    }

    @Test func algorithmsThatDoNotFitTheKeyAreRefused() throws {
        let ec = try PrivateKey.generate(.p256)
        let ed = try PrivateKey.generate(.ed25519)
        let x = try PrivateKey.generate(.x25519)
        #expect(throws: CryptoError.unsupportedCurve("EdDSA cannot sign with a P-256 key")) {
            try ec.sign([1], algorithm: .edDSA)
        }
        #expect(throws: CryptoError.unsupportedCurve("ES256 cannot sign with a Ed25519 key")) {
            try ed.sign([1], algorithm: .es256)
        }
        #expect(throws: CryptoError.self) { try x.sign([1], algorithm: .edDSA) }
        let edSignature = try ed.sign([1], algorithm: .edDSA)
        #expect(!ed.publicKey.isValidSignature(edSignature, for: [1], algorithm: .es256))
        #expect(!ec.publicKey.isValidSignature(edSignature, for: [1], algorithm: .edDSA))
    }

    @Test func ed25519MatchesRFC8032Test1() throws {
        let key = try PrivateKey(
            curve: .ed25519,
            rawPrivateKey: [UInt8](hex: "9d61b19deffd5a60ba844af492ec2cc44449c5697b326919703bac031cae7f60"))
        #expect(key.publicKey.x.hex == "d75a980182b10ab7d54bfed3c964073a0ee172f3daa62325af021a68f707511a")
        let expected =
            "e5564300c360ac729086e2cc806e828a84877f1eb8e5d974d873e06522490155"
            + "5fb8821590a33bacc61e39701cf9b46bd25bf5f0595bbe24655141438e7a100b"
        #expect(try key.sign([], algorithm: .edDSA).hex == expected)
        let publicKey = try PublicKey(curve: .ed25519, raw: key.publicKey.x)
        #expect(publicKey.isValidSignature([UInt8](hex: expected), for: [], algorithm: .edDSA))
    }

    @Test func ed448MatchesRFC8032BlankMessage() throws {
        let key = try PrivateKey(
            curve: .ed448,
            rawPrivateKey: [UInt8](
                hex: "6c82a562cb808d10d632be89c8513ebf6c929f34ddfa8c9f63c9960ef6e348a3"
                    + "528c8a3fcc2f044e39a3fc5b94492f8f032e7549a20098f95b"))
        #expect(
            key.publicKey.x.hex
                == "5fd7449b59b461fd2ce787ec616ad46a1da1342485a70e1f8a0ea75d80e96778"
                + "edf124769b46c7061bd6783df1e50f6cd1fa1abeafe8256180")
        #expect(
            try key.sign([], algorithm: .edDSA).hex
                == "533a37f6bbe457251f023c0d88f976ae2dfb504a843e34d2074fd823d41a591f"
                + "2b233f034f628281f2fd7a22ddd47d7828c59bd0a21bfd3980ff0d2028d4b18a"
                + "9df63e006c5d1c2d345b925d8dc00b4104852db99ac5c7cdda8530a113a0f4db"
                + "b61149f05a7363268c71d95808ff2e652600")
    }
}

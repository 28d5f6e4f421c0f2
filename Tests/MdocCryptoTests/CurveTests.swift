import MdocCrypto
import Testing

struct CurveTests {
    @Test func coseIdentifiersFollowRFC9053AndISO18013() {
        let expected: [Curve: Int] = [
            .p256: 1, .p384: 2, .p521: 3, .x25519: 4, .x448: 5, .ed25519: 6, .ed448: 7,
            .brainpoolP256r1: 256, .brainpoolP320r1: 257, .brainpoolP384r1: 258, .brainpoolP512r1: 259,
        ]
        for curve in Curve.allCases {
            #expect(curve.coseIdentifier == expected[curve])
            #expect(Curve(coseIdentifier: curve.coseIdentifier) == curve)
        }
        #expect(Curve(coseIdentifier: 0) == nil)
        #expect(Curve(coseIdentifier: 8) == nil)
        #expect(Curve(coseIdentifier: 260) == nil)
    }

    @Test func coordinateSizesMatchTheFieldSizes() {
        let expected: [Curve: Int] = [
            .p256: 32, .p384: 48, .p521: 66, .x25519: 32, .x448: 56, .ed25519: 32, .ed448: 57,
            .brainpoolP256r1: 32, .brainpoolP320r1: 40, .brainpoolP384r1: 48, .brainpoolP512r1: 64,
        ]
        for curve in Curve.allCases { #expect(curve.coordinateSize == expected[curve]) }
    }

    @Test func keyTypeAndCapabilitiesFollowTheCurveFamily() {
        for curve in Curve.allCases {
            let okp: Set<Curve> = [.x25519, .x448, .ed25519, .ed448]
            #expect(curve.isOKP == okp.contains(curve))
            #expect(curve.supportsKeyAgreement == (curve != .ed25519 && curve != .ed448))
            #expect(curve.supportsSigning == (curve != .x25519 && curve != .x448))
        }
    }

    @Test func rawValuesAreTheDisplayNames() {
        #expect(Curve.p256.rawValue == "P-256")
        #expect(Curve.ed25519.rawValue == "Ed25519")
        #expect(Curve.brainpoolP384r1.rawValue == "brainpoolP384r1")
    }

    @Test func signatureAlgorithmsUseCOSEIdentifiersAndDigests() {
        #expect(SignatureAlgorithm(rawValue: -7) == .es256)
        #expect(SignatureAlgorithm(rawValue: -35) == .es384)
        #expect(SignatureAlgorithm(rawValue: -36) == .es512)
        #expect(SignatureAlgorithm(rawValue: -8) == .edDSA)
        #expect(SignatureAlgorithm.es256.digest == .sha256)
        #expect(SignatureAlgorithm.es384.digest == .sha384)
        #expect(SignatureAlgorithm.es512.digest == .sha512)
        #expect(SignatureAlgorithm.edDSA.digest == nil)
    }
}

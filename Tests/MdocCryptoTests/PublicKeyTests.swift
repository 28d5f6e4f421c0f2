import MdocCrypto
import TestSupport
import Testing

struct PublicKeyTests {
    static let readerX = [UInt8](hex: "60e3392385041f51403051f2415531cb56dd3f999c71687013aac6768bc8187e")
    static let readerY = [UInt8](hex: "e58deb8fdbe907f7dd5368245551a34796f7d2215c440c339bb0f7b67beccdfa")

    @Test func pointsNotOnTheCurveAreRejected() {
        var y = Self.readerY
        y[31] ^= 1
        #expect(throws: CryptoError.invalidKey("point not on curve P-256")) {
            try PublicKey(curve: .p256, x: Self.readerX, y: y)
        }
        #expect(throws: CryptoError.self) {
            try PublicKey(curve: .p256, x: [UInt8](repeating: 0, count: 32), y: [UInt8](repeating: 0, count: 32))
        }
        // x = y = p - 1 is out of range as well as off the curve.
        let p = [UInt8](hex: "ffffffff00000001000000000000000000000000fffffffffffffffffffffffe")
        #expect(throws: CryptoError.self) { try PublicKey(curve: .p256, x: p, y: p) }
    }

    @Test(arguments: Curve.allCases.filter { !$0.isOKP })
    func pointsOffEveryEC2CurveAreRejected(_ curve: Curve) throws {
        let key = try PrivateKey.generate(curve).publicKey
        var y = try #require(key.y)
        y[y.count - 1] ^= 1
        #expect(throws: CryptoError.invalidKey("point not on curve \(curve.rawValue)")) {
            try PublicKey(curve: curve, x: key.x, y: y)
        }
        #expect(try PublicKey(curve: curve, x: key.x, y: key.y!) == key)
    }

    @Test func wrongLengthCoordinatesAreRejected() {
        #expect(throws: CryptoError.invalidLength("P-256 coordinates must be 32 bytes each, not 31 and 32")) {
            try PublicKey(curve: .p256, x: Array(Self.readerX.dropFirst()), y: Self.readerY)
        }
        #expect(throws: CryptoError.self) { try PublicKey(curve: .p256, x: [0] + Self.readerX, y: [0] + Self.readerY) }
        #expect(throws: CryptoError.invalidLength("X25519 public keys are 32 bytes, not 31")) {
            try PublicKey(curve: .x25519, raw: [UInt8](repeating: 9, count: 31))
        }
        #expect(throws: CryptoError.self) { try PublicKey(curve: .ed448, raw: [UInt8](repeating: 9, count: 56)) }
    }

    @Test func curveFamilyMismatchesAreRejected() {
        #expect(throws: CryptoError.self) { try PublicKey(curve: .x25519, x: Self.readerX, y: Self.readerY) }
        #expect(throws: CryptoError.self) { try PublicKey(curve: .p256, raw: Self.readerX) }
    }

    @Test(arguments: Curve.allCases)
    func subjectPublicKeyInfoRoundTripsOnEveryCurve(_ curve: Curve) throws {
        let key = try PrivateKey.generate(curve).publicKey
        let parsed = try PublicKey(subjectPublicKeyInfoDER: key.subjectPublicKeyInfoDER)
        #expect(parsed == key)
        #expect(parsed.curve == curve)
        #expect(parsed.x.count == curve.coordinateSize)
        #expect(parsed.y?.count == (curve.isOKP ? nil : curve.coordinateSize))
        let fromPEM = try PublicKey(pem: key.pem)
        #expect(fromPEM == key)
    }

    @Test func compressedPointsAreDecodedAndReencodedUncompressed() throws {
        let x = [UInt8](hex: "5a88d182bce5f42efa59943f33359d2e8a968ff289d93e5fa444b624343167fe")
        let y = [UInt8](hex: "b16e8cf858ddc7690407ba61d4c338237a8cfcf3de6aa672fc60a557aa32fc67")
        // SubjectPublicKeyInfo for P-256 with a compressed point (y is odd: prefix 03).
        let spki = [UInt8](hex: "3039301306072a8648ce3d020106082a8648ce3d030107032200") + [0x03] + x
        let key = try PublicKey(subjectPublicKeyInfoDER: spki)
        #expect(key.x == x)
        #expect(key.y == y)
        #expect(key.subjectPublicKeyInfoDER.count == 91)
        #expect(key == (try PublicKey(curve: .p256, x: x, y: y)))
    }

    @Test func malformedOrTrailingSubjectPublicKeyInfoIsRejected() throws {
        let key = try PrivateKey.generate(.p256).publicKey
        #expect(throws: CryptoError.self) { try PublicKey(subjectPublicKeyInfoDER: key.subjectPublicKeyInfoDER + [0]) }
        #expect(throws: CryptoError.self) {
            try PublicKey(subjectPublicKeyInfoDER: Array(key.subjectPublicKeyInfoDER.dropLast()))
        }
        #expect(throws: CryptoError.self) { try PublicKey(subjectPublicKeyInfoDER: []) }
        #expect(throws: CryptoError.self) { try PublicKey(pem: "not a key") }
    }

    @Test func equalityComparesCurveAndPoint() throws {
        let a = try PrivateKey.generate(.p256).publicKey
        let b = try PrivateKey.generate(.p256).publicKey
        #expect(a == (try PublicKey(curve: .p256, x: a.x, y: a.y!)))
        #expect(a != b)
        let x1 = try PrivateKey(curve: .x25519, rawPrivateKey: [UInt8](repeating: 7, count: 32)).publicKey
        let ed = try PublicKey(curve: .ed25519, raw: x1.x)
        #expect(x1 != ed)  // same bytes, different curve
    }
}

import CBOR
import COSE
import MdocCrypto
import TestSupport
import Testing

struct COSEKeyTests {
    @Test func theAnnexDEphemeralKeyReadsAndReencodes() throws {
        let tagged = try CBOR.decode(Vectors.annexD("EDeviceKeyBytes"))
        let inner = try #require(tagged.embeddedValue)
        let key = try COSEKey(cbor: inner.value)
        #expect(key.curve == .p256)
        #expect(key.x == Vectors.annexD("EDeviceKey_x"))
        #expect(key.cbor.encoded() == inner.bytes)
        let d = try PrivateKey(curve: .p256, rawPrivateKey: Vectors.annexD("EDeviceKey_private_d"))
        #expect(try key.publicKey() == d.publicKey)
    }

    @Test(arguments: Curve.allCases)
    func roundTripsOn(_ curve: Curve) throws {
        let key = try PrivateKey.generate(curve).publicKey
        let cose = COSEKey(key)
        let back = try COSEKey(bytes: cose.cbor.encoded())
        #expect(back == cose)
        #expect(try back.publicKey() == key)
        #expect(cose.cbor[intKey: 1] == (curve.isOKP ? 1 : 2))
    }

    @Test func refusesBrokenKeys() throws {
        let good = COSEKey(try PrivateKey.generate(.p256).publicKey)
        let cases: [CBOR] = [
            [1: 2, -1: 1, -2: .bytes(good.x)],  // no y
            [1: 2, -1: 99, -2: .bytes(good.x), -3: .bytes(good.y!)],  // unknown curve
            [1: 2, -1: 1, -2: .bytes(good.x + [0]), -3: .bytes(good.y!)],  // long x
            [1: 2, -1: 1, -2: .bytes([]), -3: .bytes(good.y!)],  // empty x
            [1: 1, -1: 1, -2: .bytes(good.x)],  // OKP with an EC2 curve
            [1: 3, -1: 1, -2: .bytes(good.x), -3: .bytes(good.y!)],  // symmetric kty
            "not a map",
        ]
        for c in cases {
            #expect(throws: COSEError.self) { try COSEKey(cbor: c) }
        }
        // Well-formed but not on the curve.
        var y = good.y!
        y[31] ^= 1
        let offCurve = try COSEKey(cbor: [1: 2, -1: 1, -2: .bytes(good.x), -3: .bytes(y)])
        #expect(throws: COSEError.self) { try offCurve.publicKey() }
    }

    @Test func readsCoordinatesWhoseLeadingZerosWereDropped() throws {
        // pymdoccbor writes coordinates without their leading zero octets (RFC 9053 keeps
        // them): the same point, read as such.
        var key = try PrivateKey.generate(.p256).publicKey
        while COSEKey(key).x[0] != 0 && COSEKey(key).y![0] != 0 { key = try PrivateKey.generate(.p256).publicKey }
        let full = COSEKey(key)
        let stripped: CBOR = [
            1: 2, -1: 1, -2: .bytes(Array(full.x.drop { $0 == 0 })), -3: .bytes(Array(full.y!.drop { $0 == 0 })),
        ]
        let read = try COSEKey(cbor: stripped)
        #expect(read == full)
        #expect(try read.publicKey() == key)
    }
}

import CBOR
import TestSupport
import Testing

/// RFC 8949 Appendix A examples: each decodes to the stated value, and where the example is
/// in preferred serialization our encoder writes exactly those bytes back.
struct RFC8949ExamplesTests {
    static let preferred: [(String, CBOR)] = [
        ("00", 0), ("01", 1), ("0a", 10), ("17", 23), ("1818", 24), ("1819", 25), ("1864", 100),
        ("1903e8", 1000), ("1a000f4240", 1_000_000), ("1b000000e8d4a51000", 1_000_000_000_000),
        ("1bffffffffffffffff", .unsigned(UInt64.max)), ("3bffffffffffffffff", .negative(UInt64.max)),
        ("20", -1), ("29", -10), ("3863", -100), ("3903e7", -1000),
        ("f90000", .float(0.0)), ("f98000", .float(-0.0)), ("f93c00", .float(1.0)), ("fb3ff199999999999a", .float(1.1)),
        ("f93e00", .float(1.5)), ("f97bff", .float(65504.0)), ("fa47c35000", .float(100000.0)),
        ("fa7f7fffff", .float(3.4028234663852886e+38)), ("fb7e37e43c8800759c", .float(1.0e+300)),
        ("f90001", .float(5.960464477539063e-8)), ("f90400", .float(0.00006103515625)), ("f9c400", .float(-4.0)),
        ("fbc010666666666666", .float(-4.1)), ("f97c00", .float(.infinity)), ("f9fc00", .float(-.infinity)),
        ("f4", false), ("f5", true), ("f6", nil), ("f7", .undefined), ("f0", .simple(16)), ("f8ff", .simple(255)),
        ("c074323031332d30332d32315432303a30343a30305a", .tagged(0, "2013-03-21T20:04:00Z")),
        ("c11a514b67b0", .tagged(1, 1_363_896_240)),
        ("c249010000000000000000", .tagged(2, .bytes([1, 0, 0, 0, 0, 0, 0, 0, 0]))),
        ("c349010000000000000000", .tagged(3, .bytes([1, 0, 0, 0, 0, 0, 0, 0, 0]))),
        ("d82076687474703a2f2f7777772e6578616d706c652e636f6d", .tagged(32, "http://www.example.com")),
        ("d74401020304", .tagged(23, .bytes([1, 2, 3, 4]))),
        // One-byte tags 6-20 (libcbor 0.8 refuses them; found by the fuzzer): COSE_Sign1 is 18.
        ("d28440a0f640", .tagged(18, [.bytes([]), [:], nil, .bytes([])])), ("c680", .tagged(6, [])),
        ("d480", .tagged(20, [])),
        ("40", .bytes([])), ("4401020304", .bytes([1, 2, 3, 4])), ("60", ""), ("6161", "a"), ("6449455446", "IETF"),
        ("62225c", "\"\\"), ("62c3bc", "\u{00fc}"), ("63e6b0b4", "\u{6c34}"), ("64f0908591", "\u{10151}"),
        ("80", []), ("83010203", [1, 2, 3]), ("8301820203820405", [1, [2, 3], [4, 5]]),
        ("a0", [:]), ("a201020304", [1: 2, 3: 4]), ("a26161016162820203", ["a": 1, "b": [2, 3]]),
        ("826161a161626163", ["a", ["b": "c"]]),
    ]

    @Test(arguments: preferred.indices)
    func decodesAndReencodesPreferredExample(_ i: Int) throws {
        let (hex, value) = Self.preferred[i]
        let decoded = try CBOR.decode([UInt8](hex: hex))
        #expect(decoded == value, "decode \(hex)")
        #expect(value.encoded().hex == hex, "encode \(hex)")
    }

    @Test func decodesNaN() throws {
        for hex in ["f97e00", "fa7fc00000", "fb7ff8000000000000"] {
            guard case .float(let d) = try CBOR.decode([UInt8](hex: hex)) else {
                Issue.record("not a float")
                continue
            }
            #expect(d.isNaN)
        }
        #expect(CBOR.float(.nan).encoded().hex == "f97e00")
    }

    @Test func decodesNonPreferredFormsToTheSameValue() throws {
        // Indefinite lengths and over-long heads decode; we re-encode them in preferred form.
        let cases: [(String, CBOR, String)] = [
            ("5f42010243030405ff", .bytes([1, 2, 3, 4, 5]), "450102030405"),
            ("7f657374726561646d696e67ff", "streaming", "6973747265616d696e67"),
            ("9fff", [], "80"), ("9f018202039f0405ffff", [1, [2, 3], [4, 5]], "8301820203820405"),
            ("bf61610161629f0203ffff", ["a": 1, "b": [2, 3]], "a26161016162820203"),
            ("1b0000000000000001", 1, "01"), ("fb3ff8000000000000", .float(1.5), "f93e00"),
        ]
        for (hex, value, preferredHex) in cases {
            let decoded = try CBOR.decode([UInt8](hex: hex))
            #expect(decoded == value, "decode \(hex)")
            #expect(decoded.encoded().hex == preferredHex)
        }
    }

    @Test func datesDecode() throws {
        let tdate = try CBOR.decode([UInt8](hex: "c074323031332d30332d32315432303a30343a30305a"))
        #expect(tdate.dateValue?.timeIntervalSince1970 == 1_363_896_240)
        let epoch = try CBOR.decode([UInt8](hex: "c11a514b67b0"))
        #expect(epoch.dateValue?.timeIntervalSince1970 == 1_363_896_240)
        // full-date, tag 1004, as ISO 18013-5 uses for birth_date.
        let fullDate = try CBOR.decode([UInt8](hex: "d903ec6a323031382d30382d3039"))
        #expect(fullDate == .tagged(1004, "2018-08-09"))
        #expect(CBOR.fullDate("2018-08-09").encoded().hex == "d903ec6a323031382d30382d3039")
    }
}

struct DiagnosticNotationTests {
    @Test func printsTheRFCsNotation() throws {
        let v = try CBOR.decode([UInt8](hex: "a26161016162820203"))
        #expect(v.diagnostic() == "{\"a\": 1, \"b\": [2, 3]}")
        #expect(CBOR.negative(0).diagnostic() == "-1")
        #expect(CBOR.bytes([1, 2, 255]).diagnostic() == "h'0102ff'")
        #expect(CBOR.bytes([UInt8](repeating: 0, count: 10)).diagnostic(maxBytes: 2) == "h'0000...' (10 bytes)")
        #expect(CBOR.tagged(1004, "2018-08-09").diagnostic() == "1004(\"2018-08-09\")")
        #expect(CBOR.embedded(EmbeddedCBOR([1])).diagnostic() == "24(<<[1]>>)")
    }
}

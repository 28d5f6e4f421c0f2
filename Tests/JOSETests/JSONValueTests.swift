import JOSE
import Testing

@Suite struct JSONValueTests {
    @Test func parsesEveryKindOfValue() throws {
        let value = try JSONValue(
            parsing:
                #" {"s": "a\"b\\c\/d\u00e9\ud83d\ude00", "n": -12.5e1, "i": 42, "t": true, "f": false, "z": null, "a": [1, [], {}]} "#
        )
        #expect(value["s"] == .string("a\"b\\c/dé😀"))
        #expect(value["n"] == .number(-125))
        #expect(value["i"]?.intValue == 42)
        #expect(value["t"] == .bool(true))
        #expect(value["f"] == .bool(false))
        #expect(value["z"] == .null)
        #expect(value["a"] == [1, [], [:]])
    }

    @Test func serializesCompactWithSortedMembers() {
        let value: JSONValue = ["b": 1, "a": ["x/y", true, nil], "c": 1.5, "d": "line\nquote\"\u{01}"]
        #expect(value.serializedString == #"{"a":["x/y",true,null],"b":1,"c":1.5,"d":"line\nquote\"\u0001"}"#)
    }

    @Test func roundTrips() throws {
        let value: JSONValue = ["k": ["nested": [1, 2, ["deep": "é"]]], "e": ""]
        #expect(try JSONValue(parsing: value.serialized) == value)
    }

    @Test(arguments: [
        #"{"a":1,"a":2}"#, "", "{", "[1,]", #"{"a" 1}"#, "01", "1.", "tru", #""\ud800""#, #""\x""#, "1 2",
        "\"\u{01}\"", "NaN", "[" + String(repeating: "[", count: 70) + String(repeating: "]", count: 71),
    ])
    func refusesMalformedText(_ text: String) {
        #expect(throws: JOSEError.self) { try JSONValue(parsing: text) }
    }

    @Test func refusesInvalidUTF8() {
        #expect(throws: JOSEError.self) { try JSONValue(parsing: [0x22, 0xFF, 0x22]) }
        // Before and after an escape too (a string without one is taken whole).
        #expect(throws: JOSEError.self) { try JSONValue(parsing: Array(#""\n"#.utf8) + [0xFF, 0x22]) }
        #expect(throws: JOSEError.self) { try JSONValue(parsing: [0x22, 0xC3] + Array(#"\n""#.utf8)) }
    }

    @Test func readsStringsWithAndWithoutEscapes() throws {
        #expect(
            try JSONValue(parsing: #"["", "plain é", "a\nb", "\u00e9x", "x\"", "ab\\"]"#)
                == ["", "plain é", "a\nb", "éx", "x\"", "ab\\"])
    }
}

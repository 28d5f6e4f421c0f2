import JOSE
import Testing

/// The order-keeping reader (the test issuer's claims files): members in the order written,
/// repeats kept, integers told from other numbers, errors with a line and a column; the
/// ordinary reader never gives those forms.
struct OrderKeepingJSONTests {
    @Test func membersComeInTheOrderWrittenWithRepeatsKept() throws {
        let value = try JSONValue(parsingKeepingOrder: Array(#"{"z": 1, "a": {"y": true, "b": null}, "z": 2}"#.utf8))
        guard case .orderedObject(let members) = value else {
            Issue.record("not an ordered object: \(value)")
            return
        }
        #expect(members.map(\.key) == ["z", "a", "z"])
        #expect(members[1].value == .orderedObject([.init(key: "y", value: true), .init(key: "b", value: nil)]))
        // The first of a repeated name answers, as the claims reader then refuses it by name.
        #expect(value["z"] == .integer(1))
        #expect(value.serializedString == #"{"z":1,"a":{"y":true,"b":null},"z":2}"#)
    }

    @Test func integersAreToldFromNumbersWithAFractionOrAnExponent() throws {
        let value = try JSONValue(parsingKeepingOrder: Array("[7, -0, 7.0, 1e3, 0.5, 99999999999999999999]".utf8))
        #expect(value == [.integer(7), .integer(0), .number(7), .number(1000), .number(0.5), .number(1e20)])
        #expect(value.arrayValue?.first?.intValue == 7)
        #expect(value.arrayValue?.first?.numberValue == 7)
    }

    @Test func anErrorNamesItsLineAndColumn() {
        #expect(throws: JOSEError.malformed("line 3, column 3: expected a member name")) {
            try JSONValue(parsingKeepingOrder: Array("{\n  \"a\": 1,\n  oops\n}".utf8))
        }
    }

    @Test func theOrdinaryReaderKeepsItsForms() throws {
        let value = try JSONValue(parsing: #"{"z": 1, "a": 2}"#)
        #expect(value == ["z": 1, "a": 2])
        #expect(value["z"] == .number(1))
        #expect(throws: JOSEError.self) { try JSONValue(parsing: #"{"z": 1, "z": 2}"#) }
    }
}

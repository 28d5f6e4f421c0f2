import Testing

@testable import ConfigFile

/// The configuration reader takes what TOML 1.0 allows and refuses what it forbids, with the
/// line of each key and of each error.
struct TOMLParserTests {
    private func parse(_ text: String) throws -> TOMLTable { try TOMLParser.parse(text) }

    private func string(_ table: TOMLTable, _ key: String) -> String? {
        if case .string(let value)? = table[key]?.value { return value }
        return nil
    }

    @Test func everyKindOfStringIsReadWithItsEscapes() throws {
        let text = #"""
            basic = "tab\there \"q\" \u00E9 \U0001F600 back\\slash"
            literal = 'C:\Users\x'
            multi = """
            one
            two \
                three"""
            quotes = """a "" b"""""
            raw = '''
            first
            'x' '''
            """#
        let root = try parse(text)
        #expect(string(root, "basic") == "tab\there \"q\" é 😀 back\\slash")
        #expect(string(root, "literal") == #"C:\Users\x"#)
        #expect(string(root, "multi") == "one\ntwo three")
        #expect(string(root, "quotes") == #"a "" b"""#)
        #expect(string(root, "raw") == "first\n'x' ")
        #expect(root["raw"]?.line == 8)
    }

    @Test(arguments: [
        "1", "+17", "-17", "0", "1_000", "0xDEAD_beef", "0o755", "0b1101", "3.14", "-0.01", "5e+22", "1E6", "6.626e-34",
        "inf", "-inf", "nan", "+nan", "true", "false", "1979-05-27T07:32:00Z", "1979-05-27T00:32:00.999999-07:00",
        "1979-05-27 07:32:00Z", "1979-05-27T07:32:00", "1979-05-27", "07:32:00", "00:32:00.999999",
    ])
    func everyValueTOMLAllowsIsRead(value: String) throws {
        let root = try parse("x = \(value)\n")
        #expect(root["x"] != nil)
    }

    @Test(arguments: [
        "01", "1__0", "_1", "1_", "0x", "+0x1", "1.", ".1", "1e", "1.e5", "03.14", "truee", "1979-13-01",
        "1979-05-27T25:00:00", "07:32:00Z", "1979-05-27T07:32", "abc",
    ])
    func malformedValuesAreRefusedWithTheirLine(value: String) {
        let error = #expect(throws: ConfigFileSyntaxError.self) { try parse("a = 1\nx = \(value)\n") }
        #expect(error?.line == 2)
        #expect(error?.message.contains("column") == true)
    }

    @Test func tablesArraysOfTablesDottedKeysAndInlineTablesNest() throws {
        let text = """
            title = "t"
            [owner]
            name.first = "a"
            name.last = "b"
            [owner.address]
            city = "c"

            [[item]]
            id = "1"
            [item.detail]
            note = "n"
            [[item]]
            id = "2"
            point = { x = 1, y.z = "w" }
            list = [ [1, 2], ["a"],
              { k = "v" },  # a comment
            ]
            """
        let root = try parse(text)
        guard case .table(let owner)? = root["owner"]?.value, case .table(let name)? = owner["name"]?.value,
            case .table(let address)? = owner["address"]?.value
        else {
            Issue.record("owner, owner.name or owner.address missing")
            return
        }
        #expect(string(name, "last") == "b")
        #expect(string(address, "city") == "c")
        guard case .arrayOfTables(let items)? = root["item"]?.value else {
            Issue.record("item is not an array of tables")
            return
        }
        #expect(items.map(\.line) == [8, 12])
        guard case .table(let second) = items[1].value, case .table(let first) = items[0].value else { return }
        #expect(string(second, "id") == "2")
        #expect(first["detail"] != nil && second["detail"] == nil)
        #expect(second.keys == ["id", "point", "list"])
        #expect(second["list"]?.line == 15)
    }

    @Test(arguments: [
        ("a = 1\na = 2\n", 2),
        ("[t]\n[t]\n", 2),
        ("[t]\nx = 1\n[t.x]\n", 3),
        ("[fruit]\napple.color = 'red'\n[fruit.apple]\n", 3),
        ("a = { b = 1 }\na.c = 2\n", 2),
        ("a = { b = 1 }\n[a.c]\n", 2),
        ("a = [1]\n[[a]]\n", 2),
        ("[[a]]\n[a]\n", 2),
        ("x = { a = 1, }\n", 1),
        ("x = { a = 1,\n b = 2 }\n", 1),
        ("x = \"open\n", 1),
        ("x = 1\ry = 2\n", 1),
        ("# bell \u{07}\n", 1),
        ("x = 'a' 'b'\n", 1),
        ("x = \"\\q\"\n", 1),
        ("x = \"\\uD800\"\n", 1),
        ("[a]]\n", 1),
        ("\n\n[[,verifier]]\n", 3),
        ("k\u{E9} = 1\n", 1),
    ])
    func whatTOMLForbidsIsRefusedWithItsLine(text: String, line: Int) {
        let error = #expect(throws: ConfigFileSyntaxError.self) { try parse(text) }
        #expect(error?.line == line, "\(String(describing: error))")
    }

    /// Found by fuzzing: a file of nested arrays ran the reader's recursion off the stack.
    @Test func nestingBeyondTheLimitIsRefusedNotFatal() throws {
        let deep = TOMLParser.maximumNesting
        _ = try parse("x = " + String(repeating: "[", count: deep) + String(repeating: "]", count: deep) + "\n")
        for text in [
            "x = " + String(repeating: "[", count: 100_000),
            "x = " + String(repeating: "{ a = ", count: 100_000),
            "a" + String(repeating: ".a", count: 100_000) + " = 1\n",
            "[a" + String(repeating: ".a", count: 100_000) + "]\n",
        ] {
            let error = #expect(throws: ConfigFileSyntaxError.self) { try parse(text) }
            #expect(error?.line == 1)
        }
    }

    @Test func headersMayAddSubtablesToTablesMadeByDottedKeysAndDefineImplicitOnes() throws {
        let text = "[fruit]\napple.color = 'red'\n[fruit.apple.texture]\nsmooth = true\n[x.y.z]\n[x]\nw = 1\n"
        let root = try parse(text)
        guard case .table(let x)? = root["x"]?.value else {
            Issue.record("x missing")
            return
        }
        #expect(x.keys == ["y", "w"])
        #expect(root["x"]?.line == 6)
    }

    @Test func crlfLineEndsAndCommentsEverywhereAreRead() throws {
        let root = try parse("# c\r\n[t] # c\r\nk = 'v' # c\r\n\r\nl = [ # c\r\n 'a', # c\r\n]\r\n")
        guard case .table(let t)? = root["t"]?.value else {
            Issue.record("t missing")
            return
        }
        #expect(string(t, "k") == "v")
        #expect(t["l"]?.line == 5)
    }
}

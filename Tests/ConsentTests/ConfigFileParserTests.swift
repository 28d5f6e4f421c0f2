import ConfigFile
import ConsentPolicy
import Foundation
import Testing

/// The configuration files are real TOML: what a user writes by the TOML specification is
/// read, and what the schema refuses is still named with its line.
struct ConfigFileParserTests {
    @Test func validTOMLThatTheOldSubsetParserRefusedIsRead() throws {
        let text = """
            # comments in odd places
            [[rule]]   # a trailing comment on a header
            reader = 'any'                 # a literal string
            doctype = '''org.iso.18013.5.1.mDL'''
            allow = [
              "org.iso.18013.5.1:age_over_18",  # an element
              # a comment inside a multi-line array
              'org.iso.18013.5.1:family_name',
            ]

            [[rule]]
            "reader" = "trusted"
            doctype = "x"
            allow = ["*"]
            """
        let tables = try ConfigFileParser.parse(text, tableName: "rule")
        #expect(tables.map(\.line) == [2, 11])
        #expect(tables[0].entries.map(\.key) == ["reader", "doctype", "allow"])
        #expect(tables[0].entries.map(\.line) == [3, 4, 5])
        #expect(
            tables[0].entries[2].value == .strings(["org.iso.18013.5.1:age_over_18", "org.iso.18013.5.1:family_name"]))
        #expect(tables[1].entries.first?.value == .string("trusted"))
        #expect(tables[1].entries.first?.line == 12)
    }

    @Test func anInlineArrayOfTablesIsRead() throws {
        let text = """
            rule = [
              { reader = "any", doctype = "x", allow = ["*"] },
            ]
            """
        let tables = try ConfigFileParser.parse(text, tableName: "rule")
        #expect(tables.count == 1)
        #expect(tables[0].entries.map(\.key) == ["reader", "doctype", "allow"])
        #expect(tables[0].entries.allSatisfy { $0.line == 2 })
    }

    @Test func aPolicyInInlineFormDecidesAsTheUsualForm() throws {
        let policy = try PolicyConsent(
            text: "rule = [{ reader = 'any', doctype = 'x', allow = ['ns:a'] }]\n",
            baseDirectory: URL(fileURLWithPath: "/"))
        #expect(policy.rules.count == 1)
    }

    @Test func aWrongTypeIsNamedWithItsLine() throws {
        let text = "[[rule]]\nreader = \"any\"\ndoctype = \"x\"\nallow = [1, 2]\n"
        let tables = try ConfigFileParser.parse(text, tableName: "rule")
        #expect(tables[0].entries.last?.value == .other("an array of integers"))
        #expect(tables[0].entries.last?.line == 4)
        #expect(throws: PolicyError.self) { try PolicyConsent(text: text, baseDirectory: URL(fileURLWithPath: "/")) }
    }

    @Test func syntaxErrorsCarryTheirLineAndColumn() {
        let error = #expect(throws: ConfigFileSyntaxError.self) {
            try ConfigFileParser.parse("[[rule]]\nreader = \"any\" extra\n", tableName: "rule")
        }
        #expect(error?.line == 2)
        #expect(error?.message.contains("column") == true)
    }

    @Test func otherTablesAndStrayKeysAreRefusedWithTheirLine() {
        for (text, expected) in [
            ("[[rule]]\nreader = \"any\"\n\n[[other]]\nx = \"y\"\n", "line 4: unknown table [[other]]"),
            ("name = \"kiosk\"\n[[rule]]\n", "line 1: name is outside a [[rule]] table"),
            ("[[rule]]\n[settings]\nx = 1\n", "line 2: [settings] is not allowed"),
        ] {
            let error = #expect(throws: ConfigFileSyntaxError.self) {
                try ConfigFileParser.parse(text, tableName: "rule")
            }
            #expect(error?.description.hasPrefix(expected) == true, "\(String(describing: error))")
        }
    }
}

extension ConfigFileParserTests {
    /// Found by fuzzing the earlier reader (toml++ stopped the process on an assertion for a
    /// character outside ASCII where a key was expected): such a character is refused, with
    /// its line.
    @Test func aNonASCIICharacterOutsideAStringIsRefusedNotFatal() throws {
        let error = #expect(throws: ConfigFileSyntaxError.self) {
            try ConfigFileParser.parse("# ok: é in a comment\n[\u{86}verifier]\nx = 'é'\n", tableName: "verifier")
        }
        #expect(error?.line == 2)
        #expect(error?.message.contains("outside a string or comment") == true)
        // In strings and comments they are fine.
        let tables = try ConfigFileParser.parse(
            "[[rule]] # é\nreader = \"é\"\nallow = ['''\né''']\n", tableName: "rule")
        #expect(tables.first?.entries.first?.value == .string("é"))
    }
}

extension ConfigFileParserTests {
    /// Found by fuzzing the earlier reader too: any character that cannot start a key where
    /// one must start.
    @Test(arguments: ["[[,verifier]]\n", "[a.,b]\n", "x = { ,a = 1 }\n", "= 1\n", "[[verifier]]\n,x = 1\n"])
    func aMissingKeyIsRefusedNotFatal(text: String) {
        let error = #expect(throws: ConfigFileSyntaxError.self) {
            try ConfigFileParser.parse(text, tableName: "verifier")
        }
        #expect(error?.message.contains("expected a key") == true)
    }

    @Test func keysInEveryPlaceTOMLAllowsStillPass() throws {
        let text = """
            [[verifier]]
            "client_id" = 'a'   # quoted key
            name.first = "n"
            response_uris = [ "https://a/r", ]
            meta = { a = 1, "b" = [1, 2], c = {} }
            """
        // The shape is the caller's to judge; here only that the reader takes the text.
        let tables = try ConfigFileParser.parse(text, tableName: "verifier")
        #expect(tables.count == 1)
    }
}

extension ConfigFileParserTests {
    /// Found by fuzzing the earlier reader: toml++ asserted where a value must start and a
    /// terminator stood.
    @Test(arguments: ["x =\n", "x = # c\n", "x = [1, ,2]\n", "x = [\"a\",\n}]\n", "x = [1,"])
    func aMissingValueIsRefusedNotFatal(text: String) {
        #expect(throws: ConfigFileSyntaxError.self) { try ConfigFileParser.parse(text, tableName: "rule") }
    }
}

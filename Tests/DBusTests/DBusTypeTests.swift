import DBus
import Testing

struct DBusTypeTests {
    @Test(arguments: [
        "y", "b", "n", "q", "i", "u", "x", "t", "d", "s", "o", "g", "h", "v", "ay", "as", "a{sv}", "a{oa{sa{sv}}}",
        "(ybnq)", "a(sa{sv})", "aay", "a{ya{sv}}", "(h(q))",
    ])
    func signaturesRoundTrip(_ signature: String) throws {
        let types = try DBusType.parse(signature)
        #expect(types.count == 1)
        #expect(types.map(\.signature).joined() == signature)
    }

    @Test func aBodySignatureHasSeveralTypes() throws {
        #expect(
            try DBusType.parse("sa{sv}as") == [.string, .dictionary(key: .string, value: .variant), .array(.string)])
        #expect(try DBusType.parse("").isEmpty)
    }

    @Test(arguments: [
        "a", "(", "()", "a{vs}", "a{s}", "a{sss}", "{sv}", "z", "(s", "a{sv", String(repeating: "a", count: 33) + "y",
    ])
    func malformedSignaturesAreRefused(_ signature: String) {
        #expect(throws: DBusError.self) { try DBusType.parse(signature) }
    }

    @Test func objectPathsAreValidated() throws {
        for good in ["/org/bluez/hci0", "/", "/a_1/B2"] {
            #expect(try DBusObjectPath(good).rawValue == good)
        }
        for bad in ["", "org", "/org/", "//", "/a//b", "/a-b", "/a.b", "/é"] {
            #expect(throws: DBusError.self) { try DBusObjectPath(bad) }
        }
        let path: DBusObjectPath = "/org/bluez/hci0/dev_00_11"
        #expect(path.parent == "/org/bluez/hci0")
        #expect(path.isDescendant(of: "/org/bluez"))
        #expect(!path.isDescendant(of: "/org/blu"))
        #expect(path.lastElement == "dev_00_11")
        #expect(DBusObjectPath.root.parent == nil)
        #expect(try DBusObjectPath.root.appending("app") == "/app")
    }

    @Test func valuesKnowTheirSignatures() {
        #expect(DBusValue.bytes([1, 2]).signature == "ay")
        #expect(DBusValue.properties(["a": .uint16(1)]).signature == "a{sv}")
        #expect(DBusValue.managedObjects([:]).signature == "a{oa{sa{sv}}}")
        #expect(DBusValue.structure([.string("x"), .array(.int32, [])]).signature == "(sai)")
        #expect(DBusValue.strings([]).signature == "as")
    }

    @Test func accessorsUnwrapVariants() {
        let props = DBusValue.properties(["Powered": .boolean(true), "Name": .string("hci0"), "MTU": .uint16(517)])
        let dict = props.propertiesValue
        #expect(dict?["Powered"]?.boolValue == true)
        #expect(dict?["Name"]?.stringValue == "hci0")
        #expect(dict?["MTU"]?.integerValue == 517)
        #expect(DBusValue.variant(.variant(.bytes([9]))).bytesValue == [9])
        #expect(DBusValue.array(.byte, [.byte(1), .byte(2)]).bytesValue == [1, 2])
    }

    @Test func matchRulesAreQuoted() {
        let rule = DBusMatchRule(
            sender: "org.bluez", interface: "org.freedesktop.DBus.Properties", member: "PropertiesChanged",
            path: "/org/bluez/hci0", arguments: [0: "it's"])
        #expect(
            rule.description
                == "type='signal',sender='org.bluez',interface='org.freedesktop.DBus.Properties',"
                + "member='PropertiesChanged',path='/org/bluez/hci0',arg0='it'\\''s'")
    }
}

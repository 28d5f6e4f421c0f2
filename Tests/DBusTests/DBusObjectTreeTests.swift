import DBus
import Synchronization
import TestSupport
import Testing

/// A small interface with one read-only and one writable property and a method.
final class CounterInterface: DBusInterface {
    let name = "org.example.Counter1"
    let path: DBusObjectPath
    private let state = Mutex<(count: UInt32, label: String)>((0, "start"))

    init(path: DBusObjectPath) { self.path = path }

    var introspection: DBusInterfaceDescription {
        DBusInterfaceDescription(
            methods: [.init("Increment", outputs: [.init("count", "u")])],
            properties: [.init("Count", "u"), .init("Label", "s", .readwrite)])
    }

    func properties() -> [String: DBusValue] {
        state.withLock { ["Count": .uint32($0.count), "Label": .string($0.label)] }
    }

    func setProperty(_ name: String, to value: DBusValue, on connection: isolated DBusConnection) throws(DBusError) {
        guard name == "Label" else { throw .propertyReadOnly("Count is read-only") }
        guard let label = value.stringValue else { throw .invalidArgs("Label is a string") }
        state.withLock { $0.label = label }
        try connection.emit(.propertiesChanged(path: path, interface: self.name, changed: ["Label": .string(label)]))
    }

    func call(_ call: DBusMessage, on connection: isolated DBusConnection) -> DBusMethodResponse {
        guard call.member == "Increment" else { return .error(.unknownMethod("no such method")) }
        let count = state.withLock { state in
            state.count += 1
            return state.count
        }
        return .reply([.uint32(count)])
    }
}

struct DBusObjectTreeTests {
    static func makeTree() throws -> DBusObjectTree {
        let tree = DBusObjectTree(root: "/app")
        try tree.add("/app/a", interfaces: [CounterInterface(path: "/app/a")])
        try tree.add("/app/a/b", interfaces: [CounterInterface(path: "/app/a/b")])
        return tree
    }

    @Test func getManagedObjectsHasTheObjectManagerShape() async throws {
        try await PrivateBus.with { bus in
            let server = try await DBusConnection.connect(address: bus.address)
            let client = try await DBusConnection.connect(address: bus.address)
            let tree = try Self.makeTree()
            try await tree.export(on: server)
            let name = await server.uniqueName
            let reply = try await client.call(
                destination: name, path: "/app", interface: DBusStandardInterface.objectManager,
                member: "GetManagedObjects")
            #expect(reply.map(\.signature) == ["a{oa{sa{sv}}}"])
            let objects = try await client.getManagedObjects(destination: name, path: "/app")
            #expect(Set(objects.keys) == ["/app/a", "/app/a/b"])
            #expect(objects["/app/a"]?["org.example.Counter1"]?["Count"] == .uint32(0))
            #expect(objects["/app/a/b"]?["org.example.Counter1"]?["Label"] == .string("start"))
            await server.close()
            await client.close()
        }
    }

    @Test func propertiesGetSetAndChangeSignals() async throws {
        try await PrivateBus.with { bus in
            let server = try await DBusConnection.connect(address: bus.address)
            let client = try await DBusConnection.connect(address: bus.address)
            try await Self.makeTree().export(on: server)
            let name = await server.uniqueName
            let changes = try await client.subscribe(.propertiesChanged(sender: name, path: "/app/a"))
            #expect(
                try await client.call(
                    destination: name, path: "/app/a", interface: "org.example.Counter1", member: "Increment")
                    == [.uint32(1)])
            #expect(
                try await client.getProperty(
                    destination: name, path: "/app/a", interface: "org.example.Counter1", name: "Count") == .uint32(1))
            let all = try await client.getAllProperties(
                destination: name, path: "/app/a/b", interface: "org.example.Counter1")
            #expect(all == ["Count": .uint32(0), "Label": .string("start")])
            try await client.setProperty(
                destination: name, path: "/app/a", interface: "org.example.Counter1", name: "Label",
                value: .string("renamed"))
            let readOnly = await #expect(throws: DBusError.self) {
                try await client.setProperty(
                    destination: name, path: "/app/a", interface: "org.example.Counter1", name: "Count",
                    value: .uint32(9))
            }
            #expect(readOnly?.name == DBusError.propertyReadOnlyName)
            let unknown = await #expect(throws: DBusError.self) {
                _ = try await client.getProperty(
                    destination: name, path: "/app/a", interface: "org.example.Counter1", name: "Nope")
            }
            #expect(unknown?.name == DBusError.unknownPropertyName)
            let missing = await #expect(throws: DBusError.self) {
                _ = try await client.getAllProperties(destination: name, path: "/app/zzz", interface: "x.y")
            }
            #expect(missing?.name == DBusError.unknownObjectName)
            for await change in changes {
                #expect(change.body.first?.stringValue == "org.example.Counter1")
                #expect(change.body[1].propertiesValue?["Label"] == .string("renamed"))
                break
            }
            await server.close()
            await client.close()
        }
    }

    @Test func introspectionListsInterfacesAndChildren() async throws {
        try await PrivateBus.with { bus in
            let server = try await DBusConnection.connect(address: bus.address)
            let client = try await DBusConnection.connect(address: bus.address)
            try await Self.makeTree().export(on: server)
            let name = await server.uniqueName
            let rootXML =
                try await client.call(
                    destination: name, path: "/app", interface: DBusStandardInterface.introspectable,
                    member: "Introspect"
                ).first?.stringValue ?? ""
            #expect(rootXML.contains("org.freedesktop.DBus.ObjectManager"))
            #expect(rootXML.contains("<node name=\"a\"/>"))
            let childXML =
                try await client.call(
                    destination: name, path: "/app/a", interface: DBusStandardInterface.introspectable,
                    member: "Introspect"
                ).first?.stringValue ?? ""
            #expect(childXML.contains("<interface name=\"org.example.Counter1\">"))
            #expect(childXML.contains("<property name=\"Label\" type=\"s\" access=\"readwrite\"/>"))
            #expect(childXML.contains("<node name=\"b\"/>"))
            #expect(!childXML.contains("ObjectManager"))
            await server.close()
            await client.close()
        }
    }

    @Test func pathsAboveAnExportedTreeIntrospectAsNodesListingTheirChildren() async throws {
        try await PrivateBus.with { bus in
            let server = try await DBusConnection.connect(address: bus.address)
            let client = try await DBusConnection.connect(address: bus.address)
            let tree = DBusObjectTree(root: "/org/example/app")
            try await tree.export(on: server)
            let name = await server.uniqueName
            func introspect(_ path: DBusObjectPath) async throws -> String {
                try await client.call(
                    destination: name, path: path, interface: DBusStandardInterface.introspectable,
                    member: "Introspect"
                ).first?.stringValue ?? ""
            }
            #expect(try await introspect("/").contains("<node name=\"org\"/>"))
            #expect(try await introspect("/org").contains("<node name=\"example\"/>"))
            #expect(try await introspect("/org/example").contains("<node name=\"app\"/>"))
            #expect(try await introspect("/org/example").contains("org.freedesktop.DBus.Introspectable"))
            // Elsewhere nothing is exported: no child is listed (libdbus answers with an empty
            // node, or an error).
            #expect((try? await introspect("/net"))?.contains("<node name=") != true)
            await server.close()
            await client.close()
        }
    }
}

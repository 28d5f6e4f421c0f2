import Synchronization

/// One interface of an object in a ``DBusObjectTree``: its properties and methods.
///
/// Every requirement runs on the connection's thread (isolated to it) in message order;
/// implementations keep their mutable state behind a lock and never block.
public protocol DBusInterface: Sendable {
    /// The interface name (`org.bluez.GattCharacteristic1`).
    var name: String { get }
    /// Methods, properties and signals, for `Introspect`.
    var introspection: DBusInterfaceDescription { get }
    /// The current values of all properties (`GetAll`, `GetManagedObjects`).
    func properties() -> [String: DBusValue]
    /// `Properties.Set`. The default refuses with `PropertyReadOnly`.
    func setProperty(_ name: String, to value: DBusValue, on connection: isolated DBusConnection) throws(DBusError)
    /// A method of this interface. The default answers `UnknownMethod`.
    func call(_ call: DBusMessage, on connection: isolated DBusConnection) -> DBusMethodResponse
}

extension DBusInterface {
    public func setProperty(_ name: String, to value: DBusValue, on connection: isolated DBusConnection)
        throws(DBusError)
    {
        throw .propertyReadOnly("property is read-only")
    }

    public func call(_ call: DBusMessage, on connection: isolated DBusConnection) -> DBusMethodResponse {
        .error(.unknownMethod("no such method on this interface"))
    }
}

/// What `Introspect` says about an interface.
public struct DBusInterfaceDescription: Sendable {
    public struct Argument: Sendable {
        public var name: String
        public var type: String
        public init(_ name: String, _ type: String) {
            self.name = name
            self.type = type
        }
    }

    public struct Method: Sendable {
        public var name: String
        public var inputs: [Argument]
        public var outputs: [Argument]
        public init(_ name: String, inputs: [Argument] = [], outputs: [Argument] = []) {
            self.name = name
            self.inputs = inputs
            self.outputs = outputs
        }
    }

    public struct Property: Sendable {
        public enum Access: String, Sendable {
            case read
            case write
            case readwrite
        }
        public var name: String
        public var type: String
        public var access: Access
        public init(_ name: String, _ type: String, _ access: Access = .read) {
            self.name = name
            self.type = type
            self.access = access
        }
    }

    public struct Signal: Sendable {
        public var name: String
        public var arguments: [Argument]
        public init(_ name: String, _ arguments: [Argument] = []) {
            self.name = name
            self.arguments = arguments
        }
    }

    public var methods: [Method]
    public var properties: [Property]
    public var signals: [Signal]

    public init(methods: [Method] = [], properties: [Property] = [], signals: [Signal] = []) {
        self.methods = methods
        self.properties = properties
        self.signals = signals
    }
}

/// A tree of exported objects under one root that implements
/// `org.freedesktop.DBus.ObjectManager` (at the root), and `org.freedesktop.DBus.Properties`
/// and `org.freedesktop.DBus.Introspectable` on every object. Export it with
/// ``export(on:)``; it answers for every path under its root.
///
/// This is the shape BlueZ expects of a GATT application and of an advertisement.
public final class DBusObjectTree: DBusObject {
    public let root: DBusObjectPath
    private let nodes: Mutex<[DBusObjectPath: [any DBusInterface]]>

    /// `rootInterfaces` are served at the root itself (besides ObjectManager).
    public init(root: DBusObjectPath, rootInterfaces: [any DBusInterface] = []) {
        self.root = root
        nodes = Mutex([root: rootInterfaces])
    }

    /// Adds (or replaces) the object at `path`, which must be at or below the root. Adding
    /// after export does not announce the object (`InterfacesAdded` is the caller's to send).
    public func add(_ path: DBusObjectPath, interfaces: [any DBusInterface]) throws(DBusError) {
        guard path.isDescendant(of: root) else { throw .invalidArgs("object path outside the tree") }
        nodes.withLock { $0[path] = interfaces }
    }

    /// Removes the object at `path` (not the root).
    public func remove(_ path: DBusObjectPath) {
        guard path != root else { return }
        _ = nodes.withLock { $0.removeValue(forKey: path) }
    }

    /// The interfaces of the object at `path`.
    public func interfaces(at path: DBusObjectPath) -> [any DBusInterface]? {
        nodes.withLock { $0[path] }
    }

    /// Every object below the root with its interfaces' properties (the
    /// `GetManagedObjects` reply; the root itself is not listed).
    public func managedObjects() -> [DBusObjectPath: [String: [String: DBusValue]]] {
        let snapshot = nodes.withLock { $0 }
        var out: [DBusObjectPath: [String: [String: DBusValue]]] = [:]
        for (path, interfaces) in snapshot where path != root {
            var entry: [String: [String: DBusValue]] = [:]
            for interface in interfaces { entry[interface.name] = interface.properties() }
            out[path] = entry
        }
        return out
    }

    /// Exports the tree (its root and everything below) on `connection`.
    public func export(on connection: DBusConnection) async throws {
        try await connection.export(self, at: root, subtree: true)
    }

    /// Stops exporting the tree.
    public func unexport(from connection: DBusConnection) async {
        await connection.unexport(root)
    }

    // MARK: DBusObject

    public func handle(_ call: DBusMessage, on connection: isolated DBusConnection) -> DBusMethodResponse {
        guard let path = call.path, let member = call.member else { return .error(.unknownMethod("no member")) }
        let snapshot = nodes.withLock { $0 }
        guard let interfaces = snapshot[path] else {
            if call.interface == DBusStandardInterface.introspectable, member == "Introspect" {
                // Intermediate paths (between the root and its objects) introspect as bare nodes.
                return .reply([.string(introspect(path: path, interfaces: [], snapshot: snapshot))])
            }
            return .error(.unknownObject("no object at this path"))
        }
        switch call.interface {
        case DBusStandardInterface.introspectable:
            guard member == "Introspect" else { break }
            return .reply([.string(introspect(path: path, interfaces: interfaces, snapshot: snapshot))])
        case DBusStandardInterface.properties:
            return properties(call, member: member, interfaces: interfaces, connection: connection)
        case DBusStandardInterface.objectManager:
            guard path == root, member == "GetManagedObjects" else { break }
            return .reply([.managedObjects(managedObjects())])
        case let name?:
            if let interface = interfaces.first(where: { $0.name == name }) {
                return interface.call(call, on: connection)
            }
            return .error(.unknownInterface("no such interface on this object"))
        case nil:
            // No interface named: the first interface that declares the method.
            if let interface = interfaces.first(where: { $0.introspection.methods.contains { $0.name == member } }) {
                return interface.call(call, on: connection)
            }
        }
        return .error(.unknownMethod("no such method"))
    }

    private func properties(
        _ call: DBusMessage, member: String, interfaces: [any DBusInterface], connection: isolated DBusConnection
    ) -> DBusMethodResponse {
        guard let interfaceName = call.body.first?.stringValue else {
            return .error(.invalidArgs("expected an interface name"))
        }
        let interface = interfaces.first { $0.name == interfaceName }
        switch member {
        case "GetAll":
            guard call.signature == "s" else { return .error(.invalidArgs("GetAll takes (s)")) }
            return .reply([.properties(interface?.properties() ?? [:])])
        case "Get":
            guard call.signature == "ss", let name = call.body[1].stringValue else {
                return .error(.invalidArgs("Get takes (ss)"))
            }
            guard let interface else { return .error(.unknownInterface("no such interface on this object")) }
            guard let value = interface.properties()[name] else {
                return .error(.unknownProperty("no such property"))
            }
            return .reply([.variant(value)])
        case "Set":
            guard call.signature == "ssv", let name = call.body[1].stringValue, case .variant(let value) = call.body[2]
            else {
                return .error(.invalidArgs("Set takes (ssv)"))
            }
            guard let interface else { return .error(.unknownInterface("no such interface on this object")) }
            guard interface.properties()[name] != nil else { return .error(.unknownProperty("no such property")) }
            do {
                try interface.setProperty(name, to: value, on: connection)
                return .reply([])
            } catch {
                return .error(error)
            }
        default:
            return .error(.unknownMethod("no such method on org.freedesktop.DBus.Properties"))
        }
    }

    // MARK: Introspection

    private func introspect(
        path: DBusObjectPath, interfaces: [any DBusInterface], snapshot: [DBusObjectPath: [any DBusInterface]]
    ) -> String {
        var xml = """
            <!DOCTYPE node PUBLIC "-//freedesktop//DTD D-BUS Object Introspection 1.0//EN"
             "http://www.freedesktop.org/standards/dbus/1.0/introspect.dtd">
            <node>

            """
        xml += Self.standardInterfacesXML
        if path == root { xml += Self.objectManagerXML }
        for interface in interfaces {
            xml += Self.xml(name: interface.name, description: interface.introspection)
        }
        var children = Set<String>()
        for candidate in snapshot.keys where candidate != path && candidate.isDescendant(of: path) {
            let rest = candidate.rawValue.dropFirst(path.rawValue == "/" ? 1 : path.rawValue.count + 1)
            if let first = rest.split(separator: "/").first { children.insert(String(first)) }
        }
        for child in children.sorted() { xml += "  <node name=\"\(child)\"/>\n" }
        xml += "</node>\n"
        return xml
    }

    private static func xml(name: String, description: DBusInterfaceDescription) -> String {
        var xml = "  <interface name=\"\(name)\">\n"
        for method in description.methods {
            xml += "    <method name=\"\(method.name)\">\n"
            for arg in method.inputs {
                xml += "      <arg name=\"\(arg.name)\" type=\"\(arg.type)\" direction=\"in\"/>\n"
            }
            for arg in method.outputs {
                xml += "      <arg name=\"\(arg.name)\" type=\"\(arg.type)\" direction=\"out\"/>\n"
            }
            xml += "    </method>\n"
        }
        for signal in description.signals {
            xml += "    <signal name=\"\(signal.name)\">\n"
            for arg in signal.arguments { xml += "      <arg name=\"\(arg.name)\" type=\"\(arg.type)\"/>\n" }
            xml += "    </signal>\n"
        }
        for property in description.properties {
            xml += "    <property name=\"\(property.name)\" type=\"\(property.type)\" access=\"\(property.access)\"/>\n"
        }
        xml += "  </interface>\n"
        return xml
    }

    private static let standardInterfacesXML = """
          <interface name="org.freedesktop.DBus.Introspectable">
            <method name="Introspect">
              <arg name="xml_data" type="s" direction="out"/>
            </method>
          </interface>
          <interface name="org.freedesktop.DBus.Properties">
            <method name="Get">
              <arg name="interface" type="s" direction="in"/>
              <arg name="name" type="s" direction="in"/>
              <arg name="value" type="v" direction="out"/>
            </method>
            <method name="GetAll">
              <arg name="interface" type="s" direction="in"/>
              <arg name="properties" type="a{sv}" direction="out"/>
            </method>
            <method name="Set">
              <arg name="interface" type="s" direction="in"/>
              <arg name="name" type="s" direction="in"/>
              <arg name="value" type="v" direction="in"/>
            </method>
            <signal name="PropertiesChanged">
              <arg name="interface" type="s"/>
              <arg name="changed_properties" type="a{sv}"/>
              <arg name="invalidated_properties" type="as"/>
            </signal>
          </interface>

        """

    private static let objectManagerXML = """
          <interface name="org.freedesktop.DBus.ObjectManager">
            <method name="GetManagedObjects">
              <arg name="objects" type="a{oa{sa{sv}}}" direction="out"/>
            </method>
            <signal name="InterfacesAdded">
              <arg name="object" type="o"/>
              <arg name="interfaces" type="a{sa{sv}}"/>
            </signal>
            <signal name="InterfacesRemoved">
              <arg name="object" type="o"/>
              <arg name="interfaces" type="as"/>
            </signal>
          </interface>

        """
}

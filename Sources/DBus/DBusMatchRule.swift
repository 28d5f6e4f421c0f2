/// A bus match rule (`AddMatch`), also applied locally to route signals to subscribers.
///
/// A rule with a well-known `sender` (`org.bluez`) matches messages from that name's
/// current owner: the connection follows the owner with `NameOwnerChanged`.
public struct DBusMatchRule: Hashable, Sendable, CustomStringConvertible {
    public var kind: DBusMessage.Kind? = .signal
    public var sender: String?
    public var interface: String?
    public var member: String?
    public var path: DBusObjectPath?
    /// Matches this path and every path below it.
    public var pathNamespace: DBusObjectPath?
    /// `argN` string matches, N in 0...63.
    public var arguments: [Int: String] = [:]

    public init(
        kind: DBusMessage.Kind? = .signal, sender: String? = nil, interface: String? = nil, member: String? = nil,
        path: DBusObjectPath? = nil, pathNamespace: DBusObjectPath? = nil, arguments: [Int: String] = [:]
    ) {
        self.kind = kind
        self.sender = sender
        self.interface = interface
        self.member = member
        self.path = path
        self.pathNamespace = pathNamespace
        self.arguments = arguments
    }

    /// `PropertiesChanged` signals (optionally for one object and one interface).
    public static func propertiesChanged(
        sender: String?, path: DBusObjectPath? = nil, pathNamespace: DBusObjectPath? = nil, interface: String? = nil
    ) -> DBusMatchRule {
        DBusMatchRule(
            sender: sender, interface: DBusStandardInterface.properties, member: "PropertiesChanged", path: path,
            pathNamespace: pathNamespace, arguments: interface.map { [0: $0] } ?? [:])
    }

    /// `NameOwnerChanged` from the bus for `name`.
    public static func nameOwnerChanged(_ name: String) -> DBusMatchRule {
        DBusMatchRule(
            sender: DBusStandardInterface.bus, interface: DBusStandardInterface.bus, member: "NameOwnerChanged",
            path: "/org/freedesktop/DBus", arguments: [0: name])
    }

    /// The rule text for `AddMatch`/`RemoveMatch`.
    public var description: String {
        var parts: [String] = []
        func add(_ key: String, _ value: String) {
            // Inside quotes only `'` needs care: close, escaped quote, reopen.
            var escaped = ""
            for character in value {
                if character == "'" { escaped += "'\\''" } else { escaped.append(character) }
            }
            parts.append("\(key)='\(escaped)'")
        }
        if let kind {
            switch kind {
            case .signal: add("type", "signal")
            case .methodCall: add("type", "method_call")
            case .methodReturn: add("type", "method_return")
            case .error: add("type", "error")
            }
        }
        if let sender { add("sender", sender) }
        if let interface { add("interface", interface) }
        if let member { add("member", member) }
        if let path { add("path", path.rawValue) }
        if let pathNamespace { add("path_namespace", pathNamespace.rawValue) }
        for (index, value) in arguments.sorted(by: { $0.key < $1.key }) { add("arg\(index)", value) }
        return parts.joined(separator: ",")
    }

    /// Local check. `senderOwner` is the unique name currently owning a well-known `sender`
    /// (nil when not known yet: the bus has already filtered by sender then).
    func matches(_ message: DBusMessage, senderOwner: String?) -> Bool {
        if let kind, message.kind != kind { return false }
        if let sender {
            if sender.hasPrefix(":") || sender == DBusStandardInterface.bus {
                if message.sender != sender { return false }
            } else if let senderOwner, message.sender != senderOwner {
                return false
            }
        }
        if let interface, message.interface != interface { return false }
        if let member, message.member != member { return false }
        if let path, message.path != path { return false }
        if let pathNamespace {
            guard let messagePath = message.path, messagePath.isDescendant(of: pathNamespace) else { return false }
        }
        for (index, value) in arguments {
            guard index < message.body.count, case .string(let s) = message.body[index], s == value else {
                return false
            }
        }
        return true
    }
}

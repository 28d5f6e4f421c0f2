/// One D-Bus value with its type.
///
/// Containers carry their element types so that empty arrays and dictionaries still have a
/// signature. A byte array (`ay`) is always ``bytes(_:)``: values read from the bus use it,
/// and `.array(.byte, …)` is accepted when sending.
public enum DBusValue: Hashable, Sendable {
    case byte(UInt8)
    case boolean(Bool)
    case int16(Int16)
    case uint16(UInt16)
    case int32(Int32)
    case uint32(UInt32)
    case int64(Int64)
    case uint64(UInt64)
    case double(Double)
    case string(String)
    case objectPath(DBusObjectPath)
    case signature(DBusSignature)
    case unixFD(DBusFileDescriptor)
    /// `ay`, the fast path for byte strings.
    case bytes([UInt8])
    /// `a<element>`: every value must be of type `element`.
    indirect case array(DBusType, [DBusValue])
    /// `a{<key><value>}` in the order given (D-Bus dictionaries are ordered on the wire).
    indirect case dictionary(key: DBusType, value: DBusType, [DBusDictEntry])
    indirect case variant(DBusValue)
    /// `(…)`, at least one field.
    indirect case structure([DBusValue])

    /// The complete type of this value.
    public var type: DBusType {
        switch self {
        case .byte: .byte
        case .boolean: .boolean
        case .int16: .int16
        case .uint16: .uint16
        case .int32: .int32
        case .uint32: .uint32
        case .int64: .int64
        case .uint64: .uint64
        case .double: .double
        case .string: .string
        case .objectPath: .objectPath
        case .signature: .signature
        case .unixFD: .unixFD
        case .bytes: .array(.byte)
        case .array(let element, _): .array(element)
        case .dictionary(let key, let value, _): .dictionary(key: key, value: value)
        case .variant: .variant
        case .structure(let fields): .structure(fields.map(\.type))
        }
    }

    /// The signature of this value's type.
    public var signature: String { type.signature }
}

/// One entry of a D-Bus dictionary.
public struct DBusDictEntry: Hashable, Sendable {
    public var key: DBusValue
    public var value: DBusValue

    public init(_ key: DBusValue, _ value: DBusValue) {
        self.key = key
        self.value = value
    }
}

// MARK: - Building common shapes

extension DBusValue {
    /// `a{sv}` from a Swift dictionary, keys sorted (deterministic output).
    public static func properties(_ properties: [String: DBusValue]) -> DBusValue {
        .dictionary(
            key: .string, value: .variant,
            properties.sorted { $0.key < $1.key }.map { DBusDictEntry(.string($0.key), .variant($0.value)) })
    }

    /// `as`.
    public static func strings(_ strings: [String]) -> DBusValue { .array(.string, strings.map { .string($0) }) }

    /// `ao`.
    public static func objectPaths(_ paths: [DBusObjectPath]) -> DBusValue {
        .array(.objectPath, paths.map { .objectPath($0) })
    }

    /// `a{sa{sv}}`: interfaces and their properties.
    public static func interfaces(_ interfaces: [String: [String: DBusValue]]) -> DBusValue {
        .dictionary(
            key: .string, value: .dictionary(key: .string, value: .variant),
            interfaces.sorted { $0.key < $1.key }.map { DBusDictEntry(.string($0.key), .properties($0.value)) })
    }

    /// `a{oa{sa{sv}}}`: the reply of `org.freedesktop.DBus.ObjectManager.GetManagedObjects`.
    public static func managedObjects(_ objects: [DBusObjectPath: [String: [String: DBusValue]]]) -> DBusValue {
        .dictionary(
            key: .objectPath, value: .dictionary(key: .string, value: .dictionary(key: .string, value: .variant)),
            objects.sorted { $0.key < $1.key }.map { DBusDictEntry(.objectPath($0.key), .interfaces($0.value)) })
    }
}

// MARK: - Reading values

extension DBusValue {
    /// The value inside any number of variant wrappers.
    public var unwrapped: DBusValue {
        var value = self
        while case .variant(let inner) = value { value = inner }
        return value
    }

    public var boolValue: Bool? {
        if case .boolean(let v) = unwrapped { return v }
        return nil
    }

    public var stringValue: String? {
        if case .string(let v) = unwrapped { return v }
        return nil
    }

    public var objectPathValue: DBusObjectPath? {
        if case .objectPath(let v) = unwrapped { return v }
        return nil
    }

    public var fileDescriptorValue: DBusFileDescriptor? {
        if case .unixFD(let v) = unwrapped { return v }
        return nil
    }

    /// Any integer type (`y n q i u x t`) that fits in `Int`.
    public var integerValue: Int? {
        switch unwrapped {
        case .byte(let v): Int(v)
        case .int16(let v): Int(v)
        case .uint16(let v): Int(v)
        case .int32(let v): Int(v)
        case .uint32(let v): Int(v)
        case .int64(let v): Int(v)
        case .uint64(let v): Int(exactly: v)
        default: nil
        }
    }

    /// `ay` (either representation).
    public var bytesValue: [UInt8]? {
        switch unwrapped {
        case .bytes(let v): return v
        case .array(.byte, let values):
            var out: [UInt8] = []
            out.reserveCapacity(values.count)
            for value in values {
                guard case .byte(let b) = value else { return nil }
                out.append(b)
            }
            return out
        default: return nil
        }
    }

    /// The elements of any array (`ay` gives `.byte` elements).
    public var arrayValue: [DBusValue]? {
        switch unwrapped {
        case .array(_, let values): values
        case .bytes(let bytes): bytes.map { .byte($0) }
        default: nil
        }
    }

    /// `as`.
    public var stringArrayValue: [String]? {
        guard let values = arrayValue else { return nil }
        var out: [String] = []
        for value in values {
            guard let s = value.stringValue else { return nil }
            out.append(s)
        }
        return out
    }

    /// `ao`.
    public var objectPathArrayValue: [DBusObjectPath]? {
        guard let values = arrayValue else { return nil }
        var out: [DBusObjectPath] = []
        for value in values {
            guard let p = value.objectPathValue else { return nil }
            out.append(p)
        }
        return out
    }

    /// The entries of any dictionary.
    public var dictionaryEntries: [DBusDictEntry]? {
        if case .dictionary(_, _, let entries) = unwrapped { return entries }
        return nil
    }

    /// `a{sv}` (or any string-keyed dictionary), values with their variant unwrapped.
    public var propertiesValue: [String: DBusValue]? {
        guard let entries = dictionaryEntries else { return nil }
        var out: [String: DBusValue] = [:]
        for entry in entries {
            guard let key = entry.key.stringValue else { return nil }
            out[key] = entry.value.unwrapped
        }
        return out
    }

    /// `a{sa{sv}}`: interface name to properties.
    public var interfacesValue: [String: [String: DBusValue]]? {
        guard let entries = dictionaryEntries else { return nil }
        var out: [String: [String: DBusValue]] = [:]
        for entry in entries {
            guard let key = entry.key.stringValue, let props = entry.value.propertiesValue else { return nil }
            out[key] = props
        }
        return out
    }

    /// `a{oa{sa{sv}}}`: the GetManagedObjects reply.
    public var managedObjectsValue: [DBusObjectPath: [String: [String: DBusValue]]]? {
        guard let entries = dictionaryEntries else { return nil }
        var out: [DBusObjectPath: [String: [String: DBusValue]]] = [:]
        for entry in entries {
            guard let path = entry.key.objectPathValue, let ifaces = entry.value.interfacesValue else { return nil }
            out[path] = ifaces
        }
        return out
    }

    /// The fields of a structure.
    public var structureFields: [DBusValue]? {
        if case .structure(let fields) = unwrapped { return fields }
        return nil
    }
}

// MARK: - Literals

extension DBusValue: ExpressibleByStringLiteral, ExpressibleByBooleanLiteral {
    public init(stringLiteral value: String) { self = .string(value) }
    public init(booleanLiteral value: Bool) { self = .boolean(value) }
}

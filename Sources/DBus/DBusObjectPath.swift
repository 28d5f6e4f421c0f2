/// A valid D-Bus object path (`/`, `/org/bluez/hci0`).
public struct DBusObjectPath: Hashable, Sendable, Comparable, CustomStringConvertible, ExpressibleByStringLiteral {
    public let rawValue: String

    /// The root path, `/`.
    public static let root = DBusObjectPath(unchecked: "/")

    /// Validates `string`: a `/`, then `/`-separated non-empty elements of `[A-Za-z0-9_]`,
    /// no trailing `/` (except the root itself).
    public init(_ string: String) throws(DBusError) {
        guard Self.isValid(string) else { throw .invalidArgs("invalid object path") }
        rawValue = string
    }

    /// For literals in code; a malformed literal is a programming error and traps.
    public init(stringLiteral value: String) {
        precondition(Self.isValid(value), "invalid D-Bus object path literal")
        rawValue = value
    }

    init(unchecked: String) {
        rawValue = unchecked
    }

    public var description: String { rawValue }

    public static func < (lhs: DBusObjectPath, rhs: DBusObjectPath) -> Bool { lhs.rawValue < rhs.rawValue }

    /// `self` with one more element; `element` must be a valid path element.
    public func appending(_ element: String) throws(DBusError) -> DBusObjectPath {
        try DBusObjectPath(rawValue == "/" ? "/" + element : rawValue + "/" + element)
    }

    /// True when `self` is `other` or lies below it (`/a/b` is under `/a` and under `/`).
    public func isDescendant(of other: DBusObjectPath) -> Bool {
        if other.rawValue == "/" || other == self { return true }
        return rawValue.hasPrefix(other.rawValue + "/")
    }

    /// The path one element up; nil for the root.
    public var parent: DBusObjectPath? {
        guard rawValue != "/" else { return nil }
        guard let slash = rawValue.lastIndex(of: "/") else { return nil }
        if slash == rawValue.startIndex { return .root }
        return DBusObjectPath(unchecked: String(rawValue[..<slash]))
    }

    /// The last element (empty for the root).
    public var lastElement: String {
        guard let slash = rawValue.lastIndex(of: "/") else { return rawValue }
        return String(rawValue[rawValue.index(after: slash)...])
    }

    static func isValid(_ string: String) -> Bool {
        let bytes = Array(string.utf8)
        guard bytes.first == UInt8(ascii: "/") else { return false }
        if bytes.count == 1 { return true }
        guard bytes.last != UInt8(ascii: "/") else { return false }
        var previousSlash = false
        for byte in bytes {
            if byte == UInt8(ascii: "/") {
                if previousSlash { return false }
                previousSlash = true
                continue
            }
            previousSlash = false
            let ok =
                (byte >= UInt8(ascii: "a") && byte <= UInt8(ascii: "z"))
                || (byte >= UInt8(ascii: "A") && byte <= UInt8(ascii: "Z"))
                || (byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9")) || byte == UInt8(ascii: "_")
            if !ok { return false }
        }
        return true
    }
}

/// A valid D-Bus signature value (type `g`): zero or more complete types.
public struct DBusSignature: Hashable, Sendable, CustomStringConvertible {
    public let rawValue: String

    public init(_ string: String) throws(DBusError) {
        _ = try DBusType.parse(string)
        rawValue = string
    }

    public init(_ types: [DBusType]) {
        rawValue = types.map(\.signature).joined()
    }

    public var types: [DBusType] {
        // Validated at init.
        (try? DBusType.parse(rawValue)) ?? []
    }

    public var description: String { rawValue }
}

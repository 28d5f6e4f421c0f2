/// A value SQLite stores: one of its five storage classes.
public enum SQLiteValue: Sendable, Hashable {
    case integer(Int64)
    case real(Double)
    case text(String)
    case blob([UInt8])
    case null
}

extension SQLiteValue: ExpressibleByIntegerLiteral, ExpressibleByFloatLiteral, ExpressibleByStringLiteral,
    ExpressibleByNilLiteral
{
    public init(integerLiteral value: Int64) { self = .integer(value) }
    public init(floatLiteral value: Double) { self = .real(value) }
    public init(stringLiteral value: String) { self = .text(value) }
    public init(nilLiteral: ()) { self = .null }
}

extension SQLiteValue {
    /// An integer, or NULL for nil.
    public static func integer(_ value: Int64?) -> SQLiteValue { value.map { .integer($0) } ?? .null }
    /// A text, or NULL for nil.
    public static func text(_ value: String?) -> SQLiteValue { value.map { .text($0) } ?? .null }
    /// A blob, or NULL for nil.
    public static func blob(_ value: [UInt8]?) -> SQLiteValue { value.map { .blob($0) } ?? .null }
    /// A real, or NULL for nil.
    public static func real(_ value: Double?) -> SQLiteValue { value.map { .real($0) } ?? .null }

    public var int64Value: Int64? {
        if case .integer(let v) = self { return v }
        return nil
    }

    public var doubleValue: Double? {
        switch self {
        case .real(let v): return v
        case .integer(let v): return Double(v)
        default: return nil
        }
    }

    public var textValue: String? {
        if case .text(let v) = self { return v }
        return nil
    }

    public var blobValue: [UInt8]? {
        if case .blob(let v) = self { return v }
        return nil
    }

    public var isNull: Bool {
        if case .null = self { return true }
        return false
    }
}

/// A CBOR data item (RFC 8949).
///
/// Maps keep the order in which their entries were decoded or built: what we produce is
/// encoded in the order the standard's CDDL lists the fields, so the same value always
/// encodes to the same bytes. Tag 24 (`#6.24(bstr .cbor X)`) is decoded into
/// ``EmbeddedCBOR``, which keeps the bytes that travelled next to the decoded value.
public indirect enum CBOR: Sendable, Hashable {
    /// Major type 0.
    case unsigned(UInt64)
    /// Major type 1: the value is `-1 - n`.
    case negative(UInt64)
    /// Major type 2.
    case bytes([UInt8])
    /// Major type 3 (valid UTF-8).
    case text(String)
    /// Major type 4.
    case array([CBOR])
    /// Major type 5, entries in order.
    case map([CBORMapEntry])
    /// Major type 6, except tag 24 which decodes to ``embedded(_:)``.
    case tagged(UInt64, CBOR)
    /// Tag 24: encoded CBOR carried in a byte string, with its original bytes.
    case embedded(EmbeddedCBOR)
    /// Simple values other than false, true, null and undefined.
    case simple(UInt8)
    case bool(Bool)
    case null
    case undefined
    /// Half, single and double precision floats. Encoded in the shortest form that keeps
    /// the value.
    case float(Double)
}

/// One entry of a CBOR map.
public struct CBORMapEntry: Sendable, Hashable {
    public var key: CBOR
    public var value: CBOR
    public init(_ key: CBOR, _ value: CBOR) {
        self.key = key
        self.value = value
    }
}

extension CBOR {
    /// An integer of either sign.
    public static func int(_ value: Int) -> CBOR {
        value >= 0 ? .unsigned(UInt64(value)) : .negative(UInt64(-1 - value))
    }

    /// A map from ordered key-value pairs.
    public static func orderedMap(_ pairs: [(CBOR, CBOR)]) -> CBOR {
        .map(pairs.map { CBORMapEntry($0.0, $0.1) })
    }
}

// MARK: - Accessors

extension CBOR {
    public var textValue: String? {
        if case .text(let s) = self { return s }
        return nil
    }

    public var bytesValue: [UInt8]? {
        if case .bytes(let b) = self { return b }
        return nil
    }

    public var arrayValue: [CBOR]? {
        if case .array(let a) = self { return a }
        return nil
    }

    public var mapEntries: [CBORMapEntry]? {
        if case .map(let m) = self { return m }
        return nil
    }

    public var boolValue: Bool? {
        if case .bool(let b) = self { return b }
        return nil
    }

    public var isNull: Bool {
        if case .null = self { return true }
        return false
    }

    /// The value as `Int`, when it is an integer that fits.
    public var intValue: Int? {
        switch self {
        case .unsigned(let u): return u <= UInt64(Int.max) ? Int(u) : nil
        case .negative(let n): return n <= UInt64(Int.max) ? -1 - Int(n) : nil
        default: return nil
        }
    }

    public var uint64Value: UInt64? {
        if case .unsigned(let u) = self { return u }
        return nil
    }

    public var embeddedValue: EmbeddedCBOR? {
        if case .embedded(let e) = self { return e }
        return nil
    }

    /// Looks a key up in a map (first match); nil for other kinds of item.
    public subscript(key: CBOR) -> CBOR? {
        guard case .map(let entries) = self else { return nil }
        return entries.first(where: { $0.key == key })?.value
    }

    public subscript(key: String) -> CBOR? { self[.text(key)] }

    public subscript(intKey key: Int) -> CBOR? { self[.int(key)] }

    /// A short name of the item's kind, for error messages (never the value).
    public var kindName: String {
        switch self {
        case .unsigned, .negative: return "integer"
        case .bytes: return "byte string"
        case .text: return "text string"
        case .array: return "array"
        case .map: return "map"
        case .tagged(let t, _): return "tag \(t)"
        case .embedded: return "tag 24"
        case .simple: return "simple value"
        case .bool: return "boolean"
        case .null: return "null"
        case .undefined: return "undefined"
        case .float: return "float"
        }
    }
}

// MARK: - Literals

extension CBOR: ExpressibleByStringLiteral, ExpressibleByIntegerLiteral, ExpressibleByBooleanLiteral,
    ExpressibleByArrayLiteral, ExpressibleByDictionaryLiteral, ExpressibleByNilLiteral
{
    public init(stringLiteral value: String) { self = .text(value) }
    public init(integerLiteral value: Int) { self = .int(value) }
    public init(booleanLiteral value: Bool) { self = .bool(value) }
    public init(arrayLiteral elements: CBOR...) { self = .array(elements) }
    /// Keeps the order in which the pairs are written.
    public init(dictionaryLiteral elements: (CBOR, CBOR)...) { self = .orderedMap(elements) }
    public init(nilLiteral: ()) { self = .null }
}

/// One complete D-Bus type, as a signature describes it.
///
/// `DBusType.parse("a{sv}")` gives `[.dictionary(key: .string, value: .variant)]`;
/// ``signature`` turns a type back into its signature text.
public indirect enum DBusType: Hashable, Sendable, CustomStringConvertible {
    case byte
    case boolean
    case int16
    case uint16
    case int32
    case uint32
    case int64
    case uint64
    case double
    case string
    case objectPath
    case signature
    case unixFD
    case variant
    /// `a<element>`; an array of dictionary entries is ``dictionary(key:value:)``.
    case array(DBusType)
    /// `a{<key><value>}`; the key is a basic type.
    case dictionary(key: DBusType, value: DBusType)
    /// `(<fields>)`, at least one field.
    case structure([DBusType])

    /// The signature text of this one type.
    public var signature: String {
        switch self {
        case .byte: "y"
        case .boolean: "b"
        case .int16: "n"
        case .uint16: "q"
        case .int32: "i"
        case .uint32: "u"
        case .int64: "x"
        case .uint64: "t"
        case .double: "d"
        case .string: "s"
        case .objectPath: "o"
        case .signature: "g"
        case .unixFD: "h"
        case .variant: "v"
        case .array(let element): "a" + element.signature
        case .dictionary(let key, let value): "a{" + key.signature + value.signature + "}"
        case .structure(let fields): "(" + fields.map(\.signature).joined() + ")"
        }
    }

    public var description: String { signature }

    /// Basic types: the ones allowed as dictionary keys.
    public var isBasic: Bool {
        switch self {
        case .variant, .array, .dictionary, .structure: false
        default: true
        }
    }

    /// Parses a signature into its complete types (zero or more).
    ///
    /// Throws ``DBusError/invalidSignature`` for anything libdbus would reject: unknown
    /// codes, unbalanced brackets, non-basic dictionary keys, empty structures, nesting
    /// deeper than 32 arrays or 32 structures, more than 255 bytes.
    public static func parse(_ signature: String) throws(DBusError) -> [DBusType] {
        let codes = Array(signature.utf8)
        guard codes.count <= 255 else { throw .invalidSignature("signature longer than 255 bytes") }
        var index = 0
        var types: [DBusType] = []
        while index < codes.count {
            types.append(try parseOne(codes, &index, arrayDepth: 0, structDepth: 0))
        }
        return types
    }

    /// Parses a signature that must hold exactly one complete type.
    public static func parseSingle(_ signature: String) throws(DBusError) -> DBusType {
        let types = try parse(signature)
        guard types.count == 1 else { throw .invalidSignature("expected a single complete type") }
        return types[0]
    }

    private static func parseOne(
        _ codes: [UInt8], _ index: inout Int, arrayDepth: Int, structDepth: Int
    ) throws(DBusError) -> DBusType {
        guard index < codes.count else { throw .invalidSignature("signature ends inside a type") }
        let code = codes[index]
        index += 1
        switch code {
        case UInt8(ascii: "y"): return .byte
        case UInt8(ascii: "b"): return .boolean
        case UInt8(ascii: "n"): return .int16
        case UInt8(ascii: "q"): return .uint16
        case UInt8(ascii: "i"): return .int32
        case UInt8(ascii: "u"): return .uint32
        case UInt8(ascii: "x"): return .int64
        case UInt8(ascii: "t"): return .uint64
        case UInt8(ascii: "d"): return .double
        case UInt8(ascii: "s"): return .string
        case UInt8(ascii: "o"): return .objectPath
        case UInt8(ascii: "g"): return .signature
        case UInt8(ascii: "h"): return .unixFD
        case UInt8(ascii: "v"): return .variant
        case UInt8(ascii: "a"):
            guard arrayDepth < 32 else { throw .invalidSignature("arrays nested deeper than 32") }
            if index < codes.count, codes[index] == UInt8(ascii: "{") {
                index += 1
                let key = try parseOne(codes, &index, arrayDepth: arrayDepth + 1, structDepth: structDepth + 1)
                guard key.isBasic else { throw .invalidSignature("dictionary key is not a basic type") }
                let value = try parseOne(codes, &index, arrayDepth: arrayDepth + 1, structDepth: structDepth + 1)
                guard index < codes.count, codes[index] == UInt8(ascii: "}") else {
                    throw .invalidSignature("dictionary entry not closed after two types")
                }
                index += 1
                return .dictionary(key: key, value: value)
            }
            return .array(try parseOne(codes, &index, arrayDepth: arrayDepth + 1, structDepth: structDepth))
        case UInt8(ascii: "("):
            guard structDepth < 32 else { throw .invalidSignature("structures nested deeper than 32") }
            var fields: [DBusType] = []
            while true {
                guard index < codes.count else { throw .invalidSignature("structure not closed") }
                if codes[index] == UInt8(ascii: ")") {
                    index += 1
                    break
                }
                fields.append(try parseOne(codes, &index, arrayDepth: arrayDepth, structDepth: structDepth + 1))
            }
            guard !fields.isEmpty else { throw .invalidSignature("empty structure") }
            return .structure(fields)
        default:
            throw .invalidSignature("unknown type code")
        }
    }
}

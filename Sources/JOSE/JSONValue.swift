/// A JSON value (RFC 8259), as JOSE headers, JWT claims and OpenID4VP parameters carry them.
///
/// Parsed by a strict reader of our own: UTF-8 only, one value with nothing after it but
/// whitespace, nesting at most ``maximumDepth`` deep, and an object with a repeated member name
/// is refused (RFC 7515 section 5.2 allows only refusing or taking the last one; refusing
/// leaves no room for two readers to disagree). Numbers are kept as `Double`.
///
/// The order-keeping reader (``init(parsingKeepingOrder:)``), for files whose order means
/// something (the test issuer's claims file: elements are issued in the order written), gives
/// objects as ``orderedObject(_:)`` with their members in order (a repeated name kept, for the
/// caller to refuse with its own words) and integers written without fraction or exponent as
/// ``integer(_:)``; nothing else makes those two cases.
public enum JSONValue: Sendable, Hashable {
    case null
    case bool(Bool)
    case number(Double)
    case string(String)
    case array([JSONValue])
    case object([String: JSONValue])
    /// An integer written without fraction or exponent (the order-keeping reader only).
    case integer(Int)
    /// An object's members in the order written (the order-keeping reader only).
    case orderedObject([Member])

    /// A member of an ``orderedObject(_:)``.
    public struct Member: Sendable, Hashable {
        public var key: String
        public var value: JSONValue

        public init(key: String, value: JSONValue) {
            self.key = key
            self.value = value
        }
    }

    /// How deep arrays and objects may nest.
    public static let maximumDepth = 64

    /// The string, if this is one.
    public var stringValue: String? {
        if case .string(let s) = self { return s }
        return nil
    }

    /// The boolean, if this is one.
    public var boolValue: Bool? {
        if case .bool(let b) = self { return b }
        return nil
    }

    /// The number, if this is one.
    public var numberValue: Double? {
        switch self {
        case .number(let n): return n
        case .integer(let i): return Double(i)
        default: return nil
        }
    }

    /// The number, if this is an integer that fits an `Int`.
    public var intValue: Int? {
        if case .integer(let i) = self { return i }
        guard case .number(let n) = self, n == n.rounded(), abs(n) < 9.0e15 else { return nil }
        return Int(n)
    }

    /// The elements, if this is an array.
    public var arrayValue: [JSONValue]? {
        if case .array(let a) = self { return a }
        return nil
    }

    /// The members, if this is an object.
    public var objectValue: [String: JSONValue]? {
        switch self {
        case .object(let o): return o
        case .orderedObject(let members):
            return Dictionary(members.map { ($0.key, $0.value) }, uniquingKeysWith: { first, _ in first })
        default: return nil
        }
    }

    /// Whether this is `null`.
    public var isNull: Bool { self == .null }

    /// The member `key` of an object (nil for a missing member or a value that is no object;
    /// the first of a repeated name).
    public subscript(key: String) -> JSONValue? {
        if case .orderedObject(let members) = self { return members.first { $0.key == key }?.value }
        return objectValue?[key]
    }
}

extension JSONValue: ExpressibleByStringLiteral, ExpressibleByBooleanLiteral, ExpressibleByIntegerLiteral,
    ExpressibleByFloatLiteral, ExpressibleByArrayLiteral, ExpressibleByDictionaryLiteral, ExpressibleByNilLiteral
{
    public init(stringLiteral value: String) { self = .string(value) }
    public init(booleanLiteral value: Bool) { self = .bool(value) }
    public init(integerLiteral value: Int) { self = .number(Double(value)) }
    public init(floatLiteral value: Double) { self = .number(value) }
    public init(arrayLiteral elements: JSONValue...) { self = .array(elements) }
    public init(nilLiteral: ()) { self = .null }
    public init(dictionaryLiteral elements: (String, JSONValue)...) {
        var members: [String: JSONValue] = [:]
        for (key, value) in elements { members[key] = value }
        self = .object(members)
    }
}

// MARK: - Reading

extension JSONValue {
    /// Parses UTF-8 JSON text.
    ///
    /// - Throws: ``JOSEError/malformed(_:)`` naming what is wrong (never quoting the input).
    public init(parsing bytes: [UInt8]) throws(JOSEError) {
        var reader = JSONReader(bytes)
        self = try reader.document()
    }

    /// Parses JSON text.
    public init(parsing text: String) throws(JOSEError) {
        try self.init(parsing: Array(text.utf8))
    }

    /// Parses UTF-8 JSON text; a failure is thrown as the error `refusal` makes of the parser's
    /// (each caller says in its own words what was not JSON).
    public init<Failure: Error>(parsing bytes: [UInt8], orThrow refusal: (JOSEError) -> Failure) throws(Failure) {
        do {
            self = try JSONValue(parsing: bytes)
        } catch {
            throw refusal(error)
        }
    }

    /// Parses JSON text; a failure is thrown as the error `refusal` makes of the parser's.
    public init<Failure: Error>(parsing text: String, orThrow refusal: (JOSEError) -> Failure) throws(Failure) {
        try self.init(parsing: Array(text.utf8), orThrow: refusal)
    }

    /// Parses UTF-8 JSON text keeping what the order-keeping form keeps (objects in order,
    /// repeated names, integers told from other numbers); an error names its line and column.
    ///
    /// - Throws: ``JOSEError/malformed(_:)``: `line L, column C: what is wrong`.
    public init(parsingKeepingOrder bytes: [UInt8]) throws(JOSEError) {
        var reader = JSONReader(bytes, keepingOrder: true)
        self = try reader.document()
    }
}

private struct JSONReader {
    let bytes: [UInt8]
    let keepingOrder: Bool
    var index = 0

    init(_ bytes: [UInt8], keepingOrder: Bool = false) {
        self.bytes = bytes
        self.keepingOrder = keepingOrder
    }

    func fail(_ what: String) -> JOSEError {
        guard keepingOrder else { return .malformed("JSON: \(what) at offset \(index)") }
        var line = 1
        var column = 1
        for byte in bytes[..<min(index, bytes.count)] {
            if byte == UInt8(ascii: "\n") {
                line += 1
                column = 1
            } else if byte & 0xC0 != 0x80 {
                column += 1
            }
        }
        return .malformed("line \(line), column \(column): \(what)")
    }

    mutating func document() throws(JOSEError) -> JSONValue {
        let value = try self.value(depth: 0)
        skipWhitespace()
        guard index == bytes.count else { throw fail("text after the value") }
        return value
    }

    mutating func skipWhitespace() {
        while index < bytes.count {
            switch bytes[index] {
            case 0x20, 0x09, 0x0A, 0x0D: index += 1
            default: return
            }
        }
    }

    mutating func value(depth: Int) throws(JOSEError) -> JSONValue {
        skipWhitespace()
        guard index < bytes.count else { throw fail("unexpected end") }
        switch bytes[index] {
        case UInt8(ascii: "{"): return try object(depth: depth + 1)
        case UInt8(ascii: "["): return try array(depth: depth + 1)
        case UInt8(ascii: "\""): return .string(try string())
        case UInt8(ascii: "t"): return try literal("true", .bool(true))
        case UInt8(ascii: "f"): return try literal("false", .bool(false))
        case UInt8(ascii: "n"): return try literal("null", .null)
        case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"): return try number()
        default: throw fail("unexpected character")
        }
    }

    mutating func literal(_ word: String, _ value: JSONValue) throws(JOSEError) -> JSONValue {
        let expected = Array(word.utf8)
        guard bytes.count - index >= expected.count, Array(bytes[index..<index + expected.count]) == expected else {
            throw fail("invalid literal")
        }
        index += expected.count
        return value
    }

    mutating func object(depth: Int) throws(JOSEError) -> JSONValue {
        guard depth <= JSONValue.maximumDepth else { throw fail("nesting too deep") }
        index += 1
        var members: [String: JSONValue] = [:]
        var ordered: [JSONValue.Member] = []
        if !skip(UInt8(ascii: "}")) {
            repeat {
                skipWhitespace()
                guard index < bytes.count, bytes[index] == UInt8(ascii: "\"") else {
                    throw fail("expected a member name")
                }
                let key = try string()
                guard skip(UInt8(ascii: ":")) else { throw fail("expected ':'") }
                let member = try value(depth: depth)
                if keepingOrder {
                    ordered.append(JSONValue.Member(key: key, value: member))
                } else if members.updateValue(member, forKey: key) != nil {
                    throw fail("repeated member name")
                }
            } while try !closes(UInt8(ascii: "}"), "object")
        }
        return keepingOrder ? .orderedObject(ordered) : .object(members)
    }

    mutating func array(depth: Int) throws(JOSEError) -> JSONValue {
        guard depth <= JSONValue.maximumDepth else { throw fail("nesting too deep") }
        index += 1
        var elements: [JSONValue] = []
        if !skip(UInt8(ascii: "]")) {
            repeat {
                elements.append(try value(depth: depth))
            } while try !closes(UInt8(ascii: "]"), "array")
        }
        return .array(elements)
    }

    /// Whether `byte` comes next after white space; if so, it is read.
    mutating func skip(_ byte: UInt8) -> Bool {
        skipWhitespace()
        guard index < bytes.count, bytes[index] == byte else { return false }
        index += 1
        return true
    }

    /// After a member or an element: true past the `container`'s closing `bracket`, false past
    /// the comma before the next one.
    mutating func closes(_ bracket: UInt8, _ container: String) throws(JOSEError) -> Bool {
        skipWhitespace()
        guard index < bytes.count else { throw fail("unterminated \(container)") }
        if skip(UInt8(ascii: ",")) { return false }
        guard skip(bracket) else { throw fail("expected ',' or '\(Character(Unicode.Scalar(bracket)))'") }
        return true
    }

    mutating func string() throws(JOSEError) -> String {
        index += 1  // the opening quote
        let start = index
        var scalars = String.UnicodeScalarView()
        var runStart = index
        func flushRun(_ end: Int) throws(JOSEError) {
            guard runStart < end else { return }
            guard let text = String(validating: bytes[runStart..<end], as: UTF8.self) else {
                throw fail("invalid UTF-8")
            }
            scalars.append(contentsOf: text.unicodeScalars)
        }
        while true {
            guard index < bytes.count else { throw fail("unterminated string") }
            let byte = bytes[index]
            if byte == UInt8(ascii: "\""), runStart == start {
                // No escape: the text as it stands.
                guard let text = String(validating: bytes[start..<index], as: UTF8.self) else {
                    throw fail("invalid UTF-8")
                }
                index += 1
                return text
            }
            if byte == UInt8(ascii: "\"") {
                try flushRun(index)
                index += 1
                return String(scalars)
            }
            if byte < 0x20 { throw fail("control character in string") }
            if byte != UInt8(ascii: "\\") {
                index += 1
                continue
            }
            try flushRun(index)
            index += 1
            guard index < bytes.count else { throw fail("unterminated escape") }
            let escape = bytes[index]
            index += 1
            switch escape {
            case UInt8(ascii: "\""): scalars.append("\"")
            case UInt8(ascii: "\\"): scalars.append("\\")
            case UInt8(ascii: "/"): scalars.append("/")
            case UInt8(ascii: "b"): scalars.append("\u{08}")
            case UInt8(ascii: "f"): scalars.append("\u{0C}")
            case UInt8(ascii: "n"): scalars.append("\n")
            case UInt8(ascii: "r"): scalars.append("\r")
            case UInt8(ascii: "t"): scalars.append("\t")
            case UInt8(ascii: "u"):
                let unit = try hex4()
                var scalarValue = UInt32(unit)
                if (0xD800...0xDBFF).contains(unit) {
                    guard index + 1 < bytes.count, bytes[index] == UInt8(ascii: "\\"),
                        bytes[index + 1] == UInt8(ascii: "u")
                    else { throw fail("unpaired surrogate") }
                    index += 2
                    let low = try hex4()
                    guard (0xDC00...0xDFFF).contains(low) else { throw fail("unpaired surrogate") }
                    scalarValue = 0x10000 + ((UInt32(unit) - 0xD800) << 10) + (UInt32(low) - 0xDC00)
                } else if (0xDC00...0xDFFF).contains(unit) {
                    throw fail("unpaired surrogate")
                }
                guard let scalar = Unicode.Scalar(scalarValue) else { throw fail("invalid escape") }
                scalars.append(scalar)
            default:
                throw fail("invalid escape")
            }
            runStart = index
        }
    }

    mutating func hex4() throws(JOSEError) -> UInt16 {
        guard bytes.count - index >= 4 else { throw fail("short \\u escape") }
        var value: UInt16 = 0
        for _ in 0..<4 {
            let c = bytes[index]
            let digit: UInt8
            switch c {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): digit = c - UInt8(ascii: "0")
            case UInt8(ascii: "a")...UInt8(ascii: "f"): digit = c - UInt8(ascii: "a") + 10
            case UInt8(ascii: "A")...UInt8(ascii: "F"): digit = c - UInt8(ascii: "A") + 10
            default: throw fail("invalid \\u escape")
            }
            value = value << 4 | UInt16(digit)
            index += 1
        }
        return value
    }

    mutating func number() throws(JOSEError) -> JSONValue {
        let start = index
        func digits() -> Int {
            let from = index
            while index < bytes.count, (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(bytes[index]) { index += 1 }
            return index - from
        }
        if bytes[index] == UInt8(ascii: "-") { index += 1 }
        guard index < bytes.count else { throw fail("invalid number") }
        if bytes[index] == UInt8(ascii: "0") {
            index += 1
        } else if digits() == 0 {
            throw fail("invalid number")
        }
        if index < bytes.count, bytes[index] == UInt8(ascii: ".") {
            index += 1
            guard digits() > 0 else { throw fail("invalid number") }
        }
        if index < bytes.count, bytes[index] == UInt8(ascii: "e") || bytes[index] == UInt8(ascii: "E") {
            index += 1
            if index < bytes.count, bytes[index] == UInt8(ascii: "+") || bytes[index] == UInt8(ascii: "-") {
                index += 1
            }
            guard digits() > 0 else { throw fail("invalid number") }
        }
        let text = String(decoding: bytes[start..<index], as: UTF8.self)
        if keepingOrder, !text.contains(where: { $0 == "." || $0 == "e" || $0 == "E" }), let integer = Int(text) {
            return .integer(integer)
        }
        guard let value = Double(text), value.isFinite else { throw fail("number out of range") }
        return .number(value)
    }
}

// MARK: - Writing

extension JSONValue {
    /// Compact UTF-8 JSON: no whitespace, object members sorted by name (so the same value
    /// always gives the same bytes), `/` not escaped, integral numbers without a fraction.
    public var serialized: [UInt8] {
        var out: [UInt8] = []
        write(to: &out)
        return out
    }

    /// ``serialized`` as a `String`.
    public var serializedString: String {
        String(decoding: serialized, as: UTF8.self)
    }

    func write(to out: inout [UInt8]) {
        switch self {
        case .null:
            out += Array("null".utf8)
        case .bool(let b):
            out += Array((b ? "true" : "false").utf8)
        case .number(let n):
            if n == n.rounded(), abs(n) < 9.0e15 {
                out += Array(String(Int64(n)).utf8)
            } else {
                out += Array("\(n)".utf8)
            }
        case .integer(let i):
            out += Array(String(i).utf8)
        case .string(let s):
            Self.writeString(s, to: &out)
        case .array(let elements):
            out.append(UInt8(ascii: "["))
            for (i, element) in elements.enumerated() {
                if i > 0 { out.append(UInt8(ascii: ",")) }
                element.write(to: &out)
            }
            out.append(UInt8(ascii: "]"))
        case .object(let members):
            out.append(UInt8(ascii: "{"))
            // Sorted by UTF-16 code units, as RFC 8785 and RFC 7638 order member names.
            let keys = members.keys.sorted { Array($0.utf16).lexicographicallyPrecedes(Array($1.utf16)) }
            for (i, key) in keys.enumerated() {
                if i > 0 { out.append(UInt8(ascii: ",")) }
                Self.writeString(key, to: &out)
                out.append(UInt8(ascii: ":"))
                members[key]!.write(to: &out)
            }
            out.append(UInt8(ascii: "}"))
        case .orderedObject(let members):
            out.append(UInt8(ascii: "{"))
            for (i, member) in members.enumerated() {
                if i > 0 { out.append(UInt8(ascii: ",")) }
                Self.writeString(member.key, to: &out)
                out.append(UInt8(ascii: ":"))
                member.value.write(to: &out)
            }
            out.append(UInt8(ascii: "}"))
        }
    }

    static func writeString(_ s: String, to out: inout [UInt8]) {
        out.append(UInt8(ascii: "\""))
        for byte in s.utf8 {
            switch byte {
            case UInt8(ascii: "\""): out += [UInt8(ascii: "\\"), UInt8(ascii: "\"")]
            case UInt8(ascii: "\\"): out += [UInt8(ascii: "\\"), UInt8(ascii: "\\")]
            case 0x0A: out += [UInt8(ascii: "\\"), UInt8(ascii: "n")]
            case 0x0D: out += [UInt8(ascii: "\\"), UInt8(ascii: "r")]
            case 0x09: out += [UInt8(ascii: "\\"), UInt8(ascii: "t")]
            case 0x00..<0x20:
                let hex = Array("0123456789abcdef".utf8)
                out += Array("\\u00".utf8) + [hex[Int(byte >> 4)], hex[Int(byte & 0x0F)]]
            default: out.append(byte)
            }
        }
        out.append(UInt8(ascii: "\""))
    }
}

/// Reads a TOML 1.0 document (https://toml.io/en/v1.0.0): comments, bare and quoted keys,
/// dotted keys, `[tables]` and `[[arrays of tables]]`, inline tables, arrays over several
/// lines, the four kinds of strings, integers, floats, booleans, dates and times. A document
/// that breaks the specification (a key or table defined twice, a character outside ASCII
/// outside a string or comment, a control character, a malformed number) is refused with
/// its line and column. Every value keeps the line it was defined on, for the callers'
/// messages.
struct TOMLParser {
    let bytes: [UInt8]
    var position = 0
    var line = 1
    /// Where the current line starts in `bytes` (for columns).
    var lineStart = 0
    /// Arrays and inline tables open around the current position.
    var nesting = 0
    /// The deepest nesting of arrays and inline tables read, and the most parts of a dotted
    /// key: each level is a call on the stack (reading it, and freeing the tables after), and
    /// a configuration file needs a few. Found by fuzzing: 1 MiB of `[` overflowed the stack.
    static let maximumNesting = 64

    let root = TOMLTable(origin: .header)
    /// The table keys are added to: the root, then the last header's.
    var current: TOMLTable

    private init(_ text: String) {
        bytes = Array(text.utf8)
        current = root
    }

    /// The document `text` as its root table.
    static func parse(_ text: String) throws(ConfigFileSyntaxError) -> TOMLTable {
        var parser = TOMLParser(text)
        try parser.document()
        return parser.root
    }

    // MARK: Errors and characters

    /// A syntax error at the current position.
    func error(_ message: String) -> ConfigFileSyntaxError {
        .syntax(line: line, "\(message) (column \(position - lineStart + 1))")
    }

    var atEnd: Bool { position >= bytes.count }
    var peek: UInt8? { position < bytes.count ? bytes[position] : nil }

    func peek(_ offset: Int) -> UInt8? {
        position + offset < bytes.count ? bytes[position + offset] : nil
    }

    /// A description of the byte at the current position for a message.
    var found: String {
        guard let byte = peek else { return "the end of the file" }
        switch byte {
        case 0x0A, 0x0D: return "the end of the line"
        case 0x20...0x7E: return "'\(Character(Unicode.Scalar(byte)))'"
        default: return "a character outside a string or comment"
        }
    }

    mutating func skipBlanks() {
        while let byte = peek, byte == 0x20 || byte == 0x09 { position += 1 }
    }

    /// A comment (from `#` to the end of the line), when one starts here.
    mutating func skipComment() throws(ConfigFileSyntaxError) {
        guard peek == UInt8(ascii: "#") else { return }
        position += 1
        while let byte = peek, byte != 0x0A {
            if byte == 0x0D, peek(1) == 0x0A { return }
            if Self.isForbiddenControl(byte) { throw error("a control character in a comment") }
            position += 1
        }
    }

    /// The end of a line (LF or CRLF), counted.
    mutating func newline() -> Bool {
        if peek == 0x0A {
            position += 1
        } else if peek == 0x0D, peek(1) == 0x0A {
            position += 2
        } else {
            return false
        }
        line += 1
        lineStart = position
        return true
    }

    /// Control characters TOML allows nowhere but as escapes (tab is allowed).
    static func isForbiddenControl(_ byte: UInt8) -> Bool {
        (byte < 0x20 && byte != 0x09) || byte == 0x7F
    }

    // MARK: Document

    private mutating func document() throws(ConfigFileSyntaxError) {
        while !atEnd {
            skipBlanks()
            if let byte = peek, byte != UInt8(ascii: "#"), byte != 0x0A, byte != 0x0D {
                if byte == UInt8(ascii: "[") {
                    try header()
                } else {
                    let (path, keyLine) = try key()
                    try keyValue(path: path, line: keyLine, into: current)
                }
                skipBlanks()
            }
            try skipComment()
            if !atEnd, !newline() {
                throw error("expected the end of the line, found \(found)")
            }
        }
    }

    /// `[a.b]` or `[[a.b]]`.
    private mutating func header() throws(ConfigFileSyntaxError) {
        let headerLine = line
        position += 1
        let isArray = peek == UInt8(ascii: "[")
        if isArray { position += 1 }
        skipBlanks()
        let (path, _) = try key()
        skipBlanks()
        guard peek == UInt8(ascii: "]"), !isArray || peek(1) == UInt8(ascii: "]") else {
            throw error("expected '\(isArray ? "]]" : "]")' to close the table header, found \(found)")
        }
        position += isArray ? 2 : 1
        let name = path.joined(separator: ".")
        var table = root
        for part in path.dropLast() {
            table = try descend(table, into: part, line: headerLine, header: name)
        }
        let last = path[path.count - 1]
        if isArray {
            let element = TOMLTable(origin: .header)
            switch table[last]?.value {
            case nil:
                table[last] = TOMLNode(
                    value: .arrayOfTables([TOMLNode(value: .table(element), line: headerLine)]), line: headerLine)
            case .arrayOfTables(let elements)?:
                table[last]?.value = .arrayOfTables(elements + [TOMLNode(value: .table(element), line: headerLine)])
            default:
                throw .syntax(line: headerLine, "[[\(name)]]: \(name) is already defined as something else")
            }
            current = element
        } else {
            switch table[last]?.value {
            case nil:
                let made = TOMLTable(origin: .header)
                table[last] = TOMLNode(value: .table(made), line: headerLine)
                current = made
            case .table(let existing)? where existing.origin == .implicit:
                existing.origin = .header
                table[last]?.line = headerLine
                current = existing
            default:
                throw .syntax(line: headerLine, "[\(name)] is defined twice")
            }
        }
    }

    /// The table `part` of `table` on the way to a header: made when missing, the last element
    /// when it is an array of tables.
    private func descend(_ table: TOMLTable, into part: String, line: Int, header: String) throws(ConfigFileSyntaxError)
        -> TOMLTable
    {
        switch table[part]?.value {
        case nil:
            let made = TOMLTable(origin: .implicit)
            table[part] = TOMLNode(value: .table(made), line: line)
            return made
        case .table(let existing)? where existing.origin != .inline:
            return existing
        case .arrayOfTables(let elements)?:
            guard case .table(let last)? = elements.last?.value else { fallthrough }
            return last
        default:
            throw .syntax(line: line, "[\(header)]: \(part) is already defined as a value")
        }
    }

    /// `path = value` into `table`; the dotted parts make (or add to) tables made by dotted
    /// keys.
    mutating func keyValue(path: [String], line keyLine: Int, into table: TOMLTable) throws(ConfigFileSyntaxError) {
        skipBlanks()
        guard peek == UInt8(ascii: "=") else {
            throw error("expected '=' after the key \(path.joined(separator: ".")), found \(found)")
        }
        position += 1
        skipBlanks()
        var target = table
        for part in path.dropLast() {
            switch target[part]?.value {
            case nil:
                let made = TOMLTable(origin: .dotted)
                target[part] = TOMLNode(value: .table(made), line: keyLine)
                target = made
            case .table(let existing)? where existing.origin == .dotted:
                target = existing
            default:
                throw .syntax(line: keyLine, "\(path.joined(separator: ".")): \(part) is already defined")
            }
        }
        let last = path[path.count - 1]
        guard target[last] == nil else {
            throw .syntax(line: keyLine, "\(path.joined(separator: ".")) is defined twice")
        }
        let value = try self.value()
        target[last] = TOMLNode(value: value, line: keyLine)
    }

    // MARK: Keys

    /// A key, dotted or not, and the line it starts on.
    mutating func key() throws(ConfigFileSyntaxError) -> (path: [String], line: Int) {
        let keyLine = line
        var path = [try simpleKey()]
        while true {
            let mark = position
            skipBlanks()
            guard peek == UInt8(ascii: ".") else {
                position = mark
                break
            }
            position += 1
            skipBlanks()
            // Each part is a table nested in the one before: as deep as arrays may go.
            guard path.count < Self.maximumNesting else {
                throw error("a key of more than \(Self.maximumNesting) dotted parts")
            }
            path.append(try simpleKey())
        }
        return (path, keyLine)
    }

    private mutating func simpleKey() throws(ConfigFileSyntaxError) -> String {
        guard let byte = peek else { throw error("expected a key, found \(found)") }
        if byte == UInt8(ascii: "\"") {
            guard peek(1) != UInt8(ascii: "\"") || peek(2) != UInt8(ascii: "\"") else {
                throw error("expected a key, found a multi-line string")
            }
            return try basicString()
        }
        if byte == UInt8(ascii: "'") {
            guard peek(1) != UInt8(ascii: "'") || peek(2) != UInt8(ascii: "'") else {
                throw error("expected a key, found a multi-line string")
            }
            return try literalString()
        }
        let start = position
        while let byte = peek, Self.isBareKey(byte) { position += 1 }
        guard position > start else { throw error("expected a key, found \(found)") }
        return String(decoding: bytes[start..<position], as: UTF8.self)
    }

    static func isBareKey(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "a")...UInt8(ascii: "z"),
            UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "_"), UInt8(ascii: "-"):
            return true
        default:
            return false
        }
    }
}

/// A syntax error in a configuration file, with its line.
public struct ConfigFileSyntaxError: Error, Sendable, Equatable, CustomStringConvertible {
    public var line: Int
    public var message: String

    public init(line: Int, _ message: String) {
        self.line = line
        self.message = message
    }

    static func syntax(line: Int, _ message: String) -> ConfigFileSyntaxError { .init(line: line, message) }

    public var description: String { "line \(line): \(message)" }
}

/// Reads the subset of TOML that the configuration files use (kiosk policy, pre-registered
/// verifiers): comments, `[[NAME]]` tables of one name, and `key = "string"` or
/// `key = ["string", ...]` (arrays may span lines; basic and literal strings). Anything else
/// is an error naming the line.
public enum ConfigFileParser {
    public enum Value: Sendable, Equatable {
        case string(String)
        case strings([String])
    }

    public struct Table: Sendable {
        /// The line of the `[[NAME]]` header.
        public var line: Int
        public var entries: [(key: String, value: Value, line: Int)] = []
    }

    /// The `[[tableName]]` tables of `text`, in order.
    public static func parse(_ text: String, tableName: String) throws(ConfigFileSyntaxError) -> [Table] {
        var tables: [Table] = []
        var scanner = Scanner(Array(text.unicodeScalars))
        while true {
            scanner.skipWhitespaceCommentsAndNewlines()
            guard let c = scanner.peek else { break }
            let line = scanner.line
            if c == "[" {
                guard scanner.consume("[[") else {
                    throw .syntax(line: line, "only [[\(tableName)]] tables are allowed")
                }
                scanner.skipSpaces()
                let name = scanner.bareKey()
                scanner.skipSpaces()
                guard scanner.consume("]]") else { throw .syntax(line: line, "expected ]] after the table name") }
                guard name == tableName else {
                    throw .syntax(line: line, "unknown table [[\(name)]]: only [[\(tableName)]]")
                }
                tables.append(Table(line: line))
            } else {
                let key = scanner.bareKey()
                guard !key.isEmpty else { throw .syntax(line: line, "expected a key or [[\(tableName)]]") }
                scanner.skipSpaces()
                guard scanner.consume("=") else { throw .syntax(line: line, "expected = after \(key)") }
                scanner.skipSpaces()
                let value = try scanner.value()
                guard tables.indices.last != nil else {
                    throw .syntax(line: line, "\(key) is outside a [[\(tableName)]] table")
                }
                if tables[tables.count - 1].entries.contains(where: { $0.key == key }) {
                    throw .syntax(line: line, "\(key) is set twice in one table")
                }
                tables[tables.count - 1].entries.append((key, value, line))
            }
            scanner.skipSpaces()
            scanner.skipComment()
            if let next = scanner.peek, next != "\n", next != "\r" {
                throw .syntax(line: scanner.line, "unexpected text after the value")
            }
        }
        return tables
    }

    struct Scanner {
        let chars: [Unicode.Scalar]
        var index = 0
        var line = 1

        init(_ chars: [Unicode.Scalar]) { self.chars = chars }

        var peek: Unicode.Scalar? { index < chars.count ? chars[index] : nil }

        mutating func advance() {
            if chars[index] == "\n" { line += 1 }
            index += 1
        }

        mutating func consume(_ s: String) -> Bool {
            let scalars = Array(s.unicodeScalars)
            guard index + scalars.count <= chars.count, Array(chars[index..<(index + scalars.count)]) == scalars else {
                return false
            }
            for _ in scalars { advance() }
            return true
        }

        mutating func skipSpaces() {
            while let c = peek, c == " " || c == "\t" { advance() }
        }

        mutating func skipComment() {
            if peek == "#" { while let c = peek, c != "\n" { advance() } }
        }

        mutating func skipWhitespaceCommentsAndNewlines() {
            while let c = peek {
                if c == " " || c == "\t" || c == "\n" || c == "\r" {
                    advance()
                } else if c == "#" {
                    skipComment()
                } else {
                    break
                }
            }
        }

        mutating func bareKey() -> String {
            var key = ""
            while let c = peek, c.properties.isAlphabetic || ("0"..."9").contains(c) || c == "_" || c == "-" {
                key.unicodeScalars.append(c)
                advance()
            }
            return key
        }

        mutating func value() throws(ConfigFileSyntaxError) -> Value {
            if peek == "[" {
                advance()
                var items: [String] = []
                while true {
                    skipWhitespaceCommentsAndNewlines()
                    if peek == "]" {
                        advance()
                        return .strings(items)
                    }
                    items.append(try string())
                    skipWhitespaceCommentsAndNewlines()
                    if peek == "," {
                        advance()
                    } else if peek != "]" {
                        throw .syntax(line: line, "expected , or ] in the array")
                    }
                }
            }
            return .string(try string())
        }

        mutating func string() throws(ConfigFileSyntaxError) -> String {
            let start = line
            if peek == "'" {
                advance()
                var s = ""
                while let c = peek, c != "'" {
                    guard c != "\n" else { throw .syntax(line: start, "unterminated string") }
                    s.unicodeScalars.append(c)
                    advance()
                }
                guard peek == "'" else { throw .syntax(line: start, "unterminated string") }
                advance()
                return s
            }
            guard peek == "\"" else { throw .syntax(line: line, "expected a quoted string") }
            advance()
            var s = ""
            while let c = peek, c != "\"" {
                guard c != "\n" else { throw .syntax(line: start, "unterminated string") }
                advance()
                if c == "\\" {
                    guard let e = peek else { break }
                    advance()
                    switch e {
                    case "\"": s += "\""
                    case "\\": s += "\\"
                    case "n": s += "\n"
                    case "t": s += "\t"
                    case "u", "U":
                        let n = e == "u" ? 4 : 8
                        var hex = ""
                        for _ in 0..<n {
                            guard let h = peek else { break }
                            hex.unicodeScalars.append(h)
                            advance()
                        }
                        guard let v = UInt32(hex, radix: 16), let scalar = Unicode.Scalar(v) else {
                            throw .syntax(line: start, "bad \\\(e) escape")
                        }
                        s.unicodeScalars.append(scalar)
                    default: throw .syntax(line: start, "unknown escape \\\(e)")
                    }
                } else {
                    s.unicodeScalars.append(c)
                }
            }
            guard peek == "\"" else { throw .syntax(line: start, "unterminated string") }
            advance()
            return s
        }
    }
}

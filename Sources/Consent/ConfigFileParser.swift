import Foundation
import TOMLKit

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

/// Reads the configuration files (kiosk policy, pre-registered verifiers) as TOML 1.0 with
/// TOMLKit (toml++): any valid TOML is read (inline tables, multi-line arrays, literal and
/// multi-line strings, comments anywhere), and a syntax error names its line and column.
/// What the files may hold is then one array of tables (`[[NAME]]`, or `NAME = [{...}]`)
/// whose values the caller checks, with the line of each key for its messages.
public enum ConfigFileParser {
    public enum Value: Sendable, Equatable {
        case string(String)
        case strings([String])
        /// Any other TOML value; the associated text names its type ("integer", "table",
        /// "array of integers" ...), for the caller's message.
        case other(String)
    }

    public struct Table: Sendable {
        /// The line of the `[[NAME]]` header (of `NAME =` for an inline array of tables).
        public var line: Int
        public var entries: [(key: String, value: Value, line: Int)] = []
    }

    /// The `[[tableName]]` tables of `text`, in order; their entries in the order of the
    /// file.
    public static func parse(_ text: String, tableName: String) throws(ConfigFileSyntaxError) -> [Table] {
        try checkCharactersOutsideStrings(text)
        let root: TOMLTable
        do {
            root = try TOMLTable(string: text)
        } catch let error as TOMLParseError {
            throw .syntax(
                line: error.source.begin.line, "\(error.description) (column \(error.source.begin.column))")
        } catch {
            throw .syntax(line: 1, "not TOML: \(error)")
        }
        let lines = SourceLines(text)
        let strays = root.keys.filter { $0 != tableName }.map { key in
            let headers = lines.arrayTableHeaders(key)
            return (key, headers.first ?? lines.firstLine(ofKey: key, orTable: key) ?? 1, !headers.isEmpty)
        }
        if let (key, line, isArrayOfTables) = strays.min(by: { $0.1 < $1.1 }) {
            if isArrayOfTables { throw .syntax(line: line, "unknown table [[\(key)]]: only [[\(tableName)]]") }
            if root[key]?.type == .table {
                throw .syntax(line: line, "[\(key)] is not allowed: only [[\(tableName)]] tables are")
            }
            throw .syntax(line: line, "\(key) is outside a [[\(tableName)]] table")
        }
        guard let value = root[tableName] else { return [] }
        guard let array = value.array else {
            throw .syntax(
                line: lines.firstLine(ofKey: tableName, orTable: tableName) ?? 1,
                "\(tableName) must be an array of tables ([[\(tableName)]])")
        }
        let headers = lines.arrayTableHeaders(tableName)
        let inlineLine = lines.firstLine(ofKey: tableName, orTable: nil) ?? 1
        var tables: [Table] = []
        for (index, element) in array.enumerated() {
            let start = headers.count == array.count ? headers[index] : inlineLine
            guard let table = element.table else {
                throw .syntax(line: start, "\(tableName) must hold tables, not \(describe(element))")
            }
            let end = headers.count == array.count && index + 1 < headers.count ? headers[index + 1] : Int.max
            var entries: [(key: String, value: Value, line: Int)] = []
            for key in table.keys {
                guard let item = table[key] else { continue }
                let line = lines.firstLine(ofKey: key, from: start, before: end) ?? start
                entries.append((key, convert(item), line))
            }
            // File order: by line, then by where the key stands on its line.
            entries.sort {
                (lines.offset(of: $0.key, onLine: $0.line), $0.key) < (
                    lines.offset(of: $1.key, onLine: $1.line), $1.key
                )
            }
            tables.append(Table(line: start, entries: entries))
        }
        return tables
    }

    /// Checks what toml++ (under TOMLKit) assumes without checking, before it sees the text:
    /// it stops the process on an assertion when a key is expected and something else stands
    /// there (`[[,verifier]]`, `[\u{86}x]`: found by fuzzing). So every place a key must start
    /// (a line, a table header, after `.` in a key, after `{` or `,` in an inline table) must
    /// hold a bare-key character or a quote, and characters outside ASCII may appear only in
    /// strings and comments (as TOML says); anything else is refused here, with its line.
    static func checkCharactersOutsideStrings(_ text: String) throws(ConfigFileSyntaxError) {
        enum Mode { case plain, comment, basic, literal, multilineBasic, multilineLiteral }
        let scalars = Array(text.unicodeScalars)
        var mode = Mode.plain
        var line = 1
        var i = 0
        var nesting: [Unicode.Scalar] = []  // "[" arrays, "{" inline tables, of values
        var expectKey = true  // a key must start at the next character that is not a space
        var inKey = true  // between the start of a key and its "=" (or a header's "]")
        var inHeader = false
        // The key expected starts a statement (a line): a comment or a blank line may stand
        // there instead. Anywhere else (a header, after "." or "{" or ",") a key must follow.
        var statementStart = true
        // A value must start at the next character that is not a space (after "=", or in
        // an array after "[" or ","): toml++ asserts on a terminator there too (fuzzing).
        var expectValue = false
        func starts(_ s: String, at index: Int) -> Bool {
            let pattern = Array(s.unicodeScalars)
            return index + pattern.count <= scalars.count && Array(scalars[index..<index + pattern.count]) == pattern
        }
        func isBareKey(_ c: Unicode.Scalar) -> Bool {
            c.isASCII && (c.properties.isAlphabetic || ("0"..."9").contains(c) || c == "_" || c == "-")
        }
        func refuse(_ what: String) -> ConfigFileSyntaxError { .syntax(line: line, what) }
        while i < scalars.count {
            let c = scalars[i]
            if c == "\n" {
                if mode == .plain, inHeader || (expectKey && !statementStart) {
                    throw refuse("expected a key before the end of the line")
                }
                if mode == .plain, expectValue, nesting.last != "[" {
                    throw refuse("expected a value before the end of the line")
                }
                line += 1
                if mode == .comment || mode == .basic || mode == .literal { mode = .plain }
                if mode == .plain, nesting.isEmpty {
                    statementStart = true
                    expectKey = true
                    inKey = true
                    inHeader = false
                }
                i += 1
                continue
            }
            switch mode {
            case .plain:
                if c == "\r" {
                    // TOML has \r only in \r\n; toml++ took a lone one for a key (fuzzing).
                    guard i + 1 < scalars.count, scalars[i + 1] == "\n" else {
                        throw refuse("a carriage return not followed by a line feed")
                    }
                    break
                }
                if c == " " || c == "\t" { break }
                if c == "#" {
                    if expectKey && !statementStart { throw refuse("expected a key, found a comment") }
                    if expectValue && nesting.last != "[" { throw refuse("expected a value, found a comment") }
                    mode = .comment
                    break
                }
                if !c.isASCII {
                    throw refuse(
                        "a character outside ASCII (U+\(String(c.value, radix: 16, uppercase: true))) outside a string or comment"
                    )
                }
                if expectValue {
                    if c == "," || c == "}" || (c == "]" && nesting.last != "[") {
                        throw refuse("expected a value, found '\(Character(c))'")
                    }
                    expectValue = false
                }
                if expectKey {
                    let atStatement = statementStart
                    statementStart = false
                    if c == "[", nesting.isEmpty, !inHeader, atStatement {
                        // A table header: [name] or [[name]].
                        inHeader = true
                        if starts("[[", at: i) { i += 1 }
                    } else if c == "}", nesting.last == "{" {
                        nesting.removeLast()
                        expectKey = false
                        inKey = false
                    } else if isBareKey(c) {
                        expectKey = false
                    } else if c == "\"" || c == "\'" {
                        // A key is a one-line string, never a multi-line one.
                        if starts(c == "\"" ? "\"\"\"" : "\'\'\'", at: i) {
                            throw refuse("a multi-line string cannot be a key")
                        }
                        expectKey = false
                        mode = c == "\"" ? .basic : .literal
                    } else {
                        throw refuse("expected a key, found '\(Character(c))'")
                    }
                    break
                }
                switch c {
                case "." where inKey: expectKey = true
                case "=" where inKey && !inHeader:
                    inKey = false
                    expectValue = true
                case "]" where inHeader && nesting.isEmpty:
                    inHeader = false
                    inKey = false
                    if starts("]]", at: i) { i += 1 }
                case "\"":
                    if starts("\"\"\"", at: i) {
                        mode = .multilineBasic
                        i += 2
                    } else {
                        mode = .basic
                    }
                case "\'":
                    if starts("\'\'\'", at: i) {
                        mode = .multilineLiteral
                        i += 2
                    } else {
                        mode = .literal
                    }
                case "{" where !inKey:
                    nesting.append("{")
                    expectKey = true
                    inKey = true
                case "[" where !inKey:
                    nesting.append("[")
                    expectValue = true
                case "]" where nesting.last == "[": nesting.removeLast()
                case "}" where nesting.last == "{":
                    nesting.removeLast()
                    inKey = false
                case "," where nesting.last == "{" && !inKey:
                    expectKey = true
                    inKey = true
                case "," where nesting.last == "[": expectValue = true
                default: break
                }
            case .comment:
                break
            case .basic:
                if c == "\\" {
                    i += 1
                } else if c == "\"" {
                    mode = .plain
                }
            case .literal:
                if c == "\'" { mode = .plain }
            case .multilineBasic:
                if c == "\\" {
                    i += 1
                } else if starts("\"\"\"", at: i) {
                    mode = .plain
                    i += 2
                }
            case .multilineLiteral:
                if starts("\'\'\'", at: i) {
                    mode = .plain
                    i += 2
                }
            }
            i += 1
        }
        if mode == .plain, inHeader || (expectKey && !statementStart) || expectValue {
            throw refuse("expected a key or a value before the end of the file")
        }
    }

    static func convert(_ value: any TOMLValueConvertible) -> Value {
        if let string = value.string { return .string(string) }
        if let array = value.array {
            let strings = array.compactMap { $0.string }
            if strings.count == array.count { return .strings(strings) }
        }
        return .other(describe(value))
    }

    static func plural(_ type: TOMLType) -> String {
        switch type {
        case .array: "arrays"
        case .table: "tables"
        case .string: "strings"
        case .int: "integers"
        case .double: "numbers"
        case .bool: "booleans"
        default: "dates or times"
        }
    }

    static func describe(_ value: any TOMLValueConvertible) -> String {
        switch value.type {
        case .array:
            let kinds = Set((value.array ?? []).map { plural($0.type) })
            return kinds.count == 1 ? "an array of \(kinds.first ?? "")" : "an array of mixed values"
        case .table: return "a table"
        case .string: return "a string"
        case .int: return "an integer"
        case .double: return "a number"
        case .bool: return "a boolean"
        default: return "a date or time"
        }
    }
}

/// Where keys and `[[NAME]]` headers sit in the file's text, for messages: TOMLKit gives
/// values, not their lines. Lines inside multi-line strings are not looked at.
struct SourceLines {
    /// The text of each line (1-based: index 0 is line 1), with multi-line string bodies
    /// blanked.
    let lines: [String]

    init(_ text: String) {
        var result: [String] = []
        var inMultiline: String?
        for raw in text.split(separator: "\n", omittingEmptySubsequences: false) {
            var line = String(raw)
            if let delimiter = inMultiline {
                if line.contains(delimiter) { inMultiline = nil }
                line = ""
            } else {
                for delimiter in ["\"\"\"", "\'\'\'"] where line.components(separatedBy: delimiter).count == 2 {
                    inMultiline = delimiter
                }
            }
            result.append(line)
        }
        lines = result
    }

    /// The lines of the `[[name]]` headers, in order.
    func arrayTableHeaders(_ name: String) -> [Int] {
        lines.indices.filter { index in
            let t = lines[index].trimmingCharacters(in: .whitespaces)
            guard t.hasPrefix("[["), let close = t.range(of: "]]") else { return false }
            let inner = t[t.index(t.startIndex, offsetBy: 2)..<close.lowerBound].trimmingCharacters(in: .whitespaces)
            return Self.unquoted(inner) == name
        }.map { $0 + 1 }
    }

    /// The first line in [from, before) where `key` is assigned (`key =`, `"key" =`), or
    /// (with `orTable`) where `[table]` starts.
    func firstLine(ofKey key: String, orTable table: String? = nil, from: Int = 1, before: Int = Int.max) -> Int? {
        guard from <= lines.count else { return nil }
        for number in from...lines.count where number < before {
            let t = lines[number - 1].trimmingCharacters(in: .whitespaces)
            if let table, t.hasPrefix("["), !t.hasPrefix("[["), let close = t.firstIndex(of: "]"),
                Self.unquoted(t[t.index(after: t.startIndex)..<close].trimmingCharacters(in: .whitespaces)) == table
            {
                return number
            }
            // Keys at the start of a line, or inside an inline table on it.
            for candidate in [t] + t.components(separatedBy: CharacterSet(charactersIn: "{,")).dropFirst() {
                guard let equals = candidate.firstIndex(of: "=") else { continue }
                if Self.unquoted(candidate[..<equals].trimmingCharacters(in: .whitespaces)) == key { return number }
            }
        }
        return nil
    }

    /// A sort key for `key` on `line`: the line, then the key's offset in it.
    func offset(of key: String, onLine line: Int) -> Int {
        guard line >= 1, line <= lines.count, let range = lines[line - 1].range(of: key) else { return line << 20 }
        return line << 20 + lines[line - 1].distance(from: lines[line - 1].startIndex, to: range.lowerBound)
    }

    static func unquoted(_ key: String) -> String {
        if key.count >= 2, let first = key.first, first == "\"" || first == "'", key.last == first {
            return String(key.dropFirst().dropLast())
        }
        return key
    }
}

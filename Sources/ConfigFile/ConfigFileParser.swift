import FoundationEssentials
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
        try TOMLCharacterCheck.check(text)
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

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

/// Reads the configuration files (kiosk policy, pre-registered verifiers) as TOML 1.0
/// (``TOMLParser``): any valid TOML is read (inline tables, multi-line arrays, literal and
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
        let root = try TOMLParser.parse(text)
        let strays = root.entries.filter { $0.key != tableName }
        if let (key, node) = strays.min(by: { $0.node.line < $1.node.line }) {
            switch node.value {
            case .arrayOfTables:
                throw .syntax(line: node.line, "unknown table [[\(key)]]: only [[\(tableName)]]")
            case .table(let table) where table.origin != .dotted && table.origin != .inline:
                throw .syntax(line: node.line, "[\(key)] is not allowed: only [[\(tableName)]] tables are")
            default:
                throw .syntax(line: node.line, "\(key) is outside a [[\(tableName)]] table")
            }
        }
        guard let node = root[tableName] else { return [] }
        let elements: [TOMLNode]
        switch node.value {
        case .arrayOfTables(let headers): elements = headers
        // An inline array of tables: each table at the line of `NAME =`.
        case .array(let values): elements = values.map { TOMLNode(value: $0.value, line: node.line) }
        default:
            throw .syntax(line: node.line, "\(tableName) must be an array of tables ([[\(tableName)]])")
        }
        var tables: [Table] = []
        for element in elements {
            guard case .table(let table) = element.value else {
                throw .syntax(line: element.line, "\(tableName) must hold tables, not \(describe(element.value))")
            }
            tables.append(
                Table(line: element.line, entries: table.entries.map { ($0.key, convert($0.node.value), $0.node.line) })
            )
        }
        return tables
    }

    static func convert(_ value: TOMLValue) -> Value {
        if case .string(let string) = value { return .string(string) }
        if case .array(let elements) = value {
            let strings = elements.compactMap { element -> String? in
                if case .string(let string) = element.value { return string }
                return nil
            }
            if strings.count == elements.count { return .strings(strings) }
        }
        return .other(describe(value))
    }

    static func plural(_ value: TOMLValue) -> String {
        switch value {
        case .array: "arrays"
        case .table, .arrayOfTables: "tables"
        case .string: "strings"
        case .integer: "integers"
        case .float: "numbers"
        case .boolean: "booleans"
        case .dateTime: "dates or times"
        }
    }

    static func describe(_ value: TOMLValue) -> String {
        switch value {
        case .array(let elements):
            let kinds = Set(elements.map { plural($0.value) })
            return kinds.count == 1 ? "an array of \(kinds.first ?? "")" : "an array of mixed values"
        case .arrayOfTables: return "an array of tables"
        case .table: return "a table"
        case .string: return "a string"
        case .integer: return "an integer"
        case .float: return "a number"
        case .boolean: return "a boolean"
        case .dateTime: return "a date or time"
        }
    }
}

/// A TOML 1.0 value as read from a configuration file, with the line it stands on.
struct TOMLNode {
    var value: TOMLValue
    /// The line of the key (or of the `[table]` / `[[table]]` header) that defined it; for an
    /// element of an array, the line the element starts on.
    var line: Int
}

/// The values TOML has. Only strings and their arrays are kept as values: the files' schema
/// needs nothing else, and every other value only has to be valid TOML and named by its type
/// in a message.
enum TOMLValue {
    case string(String)
    case integer
    case float
    case boolean
    case dateTime
    case array([TOMLNode])
    case table(TOMLTable)
    /// An array of tables made by `[[name]]` headers, each element a `table` with its
    /// header's line (an array value written `name = [...]` is an `array`, and no header may
    /// add to it).
    case arrayOfTables([TOMLNode])
}

/// A table: its keys in the order of the file. A class, because headers and dotted keys add
/// to tables made earlier while the document is read.
final class TOMLTable {
    /// How the table came to be, which decides what may still add to it (TOML 1.0, "Table"
    /// and "Inline Table").
    enum Origin {
        /// Made on the way to a deeper header (`[a]` when `[a.b]` was read); a `[a]` header
        /// may still define it once.
        case implicit
        /// Defined by its own `[header]` or as an element of `[[header]]`.
        case header
        /// Made by dotted keys (`a.b = 1`): more dotted keys may add to it, a header may
        /// not define it.
        case dotted
        /// An inline table (`{ ... }`): complete as written.
        case inline
    }

    var origin: Origin
    private(set) var keys: [String] = []
    private var nodes: [String: TOMLNode] = [:]

    init(origin: Origin) { self.origin = origin }

    subscript(key: String) -> TOMLNode? {
        get { nodes[key] }
        set {
            if nodes[key] == nil { keys.append(key) }
            nodes[key] = newValue
        }
    }

    /// The entries in the order of the file.
    var entries: [(key: String, node: TOMLNode)] { keys.compactMap { key in nodes[key].map { (key, $0) } } }
}

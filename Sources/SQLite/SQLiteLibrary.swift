import CSQLite
import SharedLibrary

/// libsqlite3, loaded (`dlopen`) when a process first opens a database rather than linked: a
/// process that opens none (`--version`, an argument error, `engagement`) maps none of it, and
/// one that will at once (`present`) loads it as it starts (``preload()``). Loaded once per
/// process, never unloaded.
public enum SQLiteLibrary {
    /// The library's name, as the Debian package `libsqlite3-0` installs it.
    static let soname = "libsqlite3.so.0"
    /// The package to install when it is missing.
    static let package = "libsqlite3-0"

    /// SQLite's functions, or why not.
    static let shared: Result<UncheckedFunctions, SQLiteError> = load(soname)

    /// Loads the library now, so that the first database opened finds it loaded: for a process
    /// that knows it will open one soon. Errors wait for the first use.
    public static func preload() {
        _ = shared
    }

    /// Nothing, or the error that says which library or function is missing and which package
    /// to install: the first thing opening a database does.
    static func require(operation: String) throws(SQLiteError) {
        if case .failure(let error) = shared {
            throw SQLiteError(code: SQLITE_CANTOPEN, message: error.message, operation: operation)
        }
    }

    /// Loads `soname` and finds every function the SQLite target calls (`MDOC_SQLITE_FUNCTIONS`
    /// in CSQLite's shim).
    static func load(_ soname: String) -> Result<UncheckedFunctions, SQLiteError> {
        let table = UnsafeMutablePointer<mdoc_libsqlite>.allocate(capacity: 1)
        do throws(SharedLibraryError) {
            let library = try SharedLibrary(soname: soname, package: package, minimumVersion: "3.37")
            try library.resolve { mdoc_libsqlite_resolve(table, $0, $1) }
            return .success(UncheckedFunctions(table: UnsafePointer(table)))
        } catch {
            table.deallocate()
            return .failure(SQLiteError(code: SQLITE_CANTOPEN, message: error.description, operation: "load \(soname)"))
        }
    }

    /// The table the loader filled: written once before it is shared, read-only after.
    struct UncheckedFunctions: @unchecked Sendable {
        let table: UnsafePointer<mdoc_libsqlite>
    }
}

/// SQLite's functions, for the SQLite target's calls (`libsqlite.sqlite3_step(statement)`).
/// Every path into SQLite starts with opening a database, which calls
/// ``SQLiteLibrary/require(operation:)`` first.
var libsqlite: mdoc_libsqlite {
    switch SQLiteLibrary.shared {
    case .success(let functions): return functions.table.pointee
    case .failure(let error): fatalError("\(error)")
    }
}

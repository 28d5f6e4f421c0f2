import CDBus
import SharedLibrary

/// libdbus-1, loaded (`dlopen`) when a process first talks to a bus rather than linked: a
/// process that never does (an online presentation, `credentials list`) maps none of it nor of
/// the seven libraries it pulls in, and one that will at once (`present`) loads it as it starts
/// (``preload()``). Loaded once per process, never unloaded.
public enum DBusLibrary {
    /// The library's name, as the Debian package `libdbus-1-3` installs it.
    static let soname = "libdbus-1.so.3"
    /// The package to install when it is missing.
    static let package = "libdbus-1-3"

    /// libdbus's functions, with its thread support set up (`dbus_threads_init_default`), or
    /// why not.
    static let shared: Result<UncheckedFunctions, DBusError> = load(soname)

    /// Loads the library now, so that the first connection finds it loaded: for a process that
    /// knows it will talk to a bus soon. Errors wait for the first use.
    public static func preload() {
        _ = shared
    }

    /// Nothing, or the error that says which library or function is missing and which package
    /// to install: the first thing a connection does.
    static func require() throws(DBusError) {
        if case .failure(let error) = shared { throw error }
    }

    /// Loads `soname` and finds every function the DBus target calls (`MDOC_LIBDBUS_FUNCTIONS`
    /// in CDBus's shim), then sets up libdbus's locks.
    static func load(_ soname: String) -> Result<UncheckedFunctions, DBusError> {
        let table = UnsafeMutablePointer<mdoc_libdbus>.allocate(capacity: 1)
        do throws(SharedLibraryError) {
            let library = try SharedLibrary(soname: soname, package: package, minimumVersion: "1.12")
            try library.resolve { mdoc_libdbus_resolve(table, $0, $1) }
        } catch {
            table.deallocate()
            return .failure(.failed(error.description))
        }
        guard table.pointee.dbus_threads_init_default() != 0 else {
            table.deallocate()
            return .failure(.noMemory)
        }
        return .success(UncheckedFunctions(table: UnsafePointer(table)))
    }

    /// The table the loader filled: written once before it is shared, read-only after.
    struct UncheckedFunctions: @unchecked Sendable {
        let table: UnsafePointer<mdoc_libdbus>
    }
}

/// libdbus's functions, for the DBus target's calls (`libdbus.dbus_message_unref(message)`).
/// Every path into libdbus starts with a connection, which calls ``DBusLibrary/require()``
/// first; a message built with no connection (tests) stops here, naming the package, when the
/// library is missing.
var libdbus: mdoc_libdbus {
    switch DBusLibrary.shared {
    case .success(let functions): return functions.table.pointee
    case .failure(let error): fatalError("\(error)")
    }
}

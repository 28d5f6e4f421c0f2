import CSQLite

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// One SQLite connection. Owns its `sqlite3` handle, closed on deinit (after the last
/// ``SQLiteStatement`` made from it is gone: statements keep their database alive).
///
/// Every connection opened read-write is set up for several processes sharing one file (a
/// CLI next to the running service): `journal_mode=WAL` (readers do not block the writer),
/// a busy timeout (a writer waits for another writer instead of failing at once) and
/// `foreign_keys=ON`. A file this type creates is created with ``init(path:flags:fileMode:busyTimeoutMilliseconds:)``'s
/// `fileMode` (0600 by default) before SQLite opens it; SQLite gives its `-wal` and `-shm`
/// files the database file's permissions.
///
/// Thread safety: not `Sendable`. The connection is opened with `SQLITE_OPEN_NOMUTEX`, so a
/// connection and its statements must be used by one thread at a time; the owner serializes
/// access (the credential store holds it behind a lock). Use one connection per process or
/// per owner rather than sharing one across tasks.
public final class SQLiteDatabase {
    /// How to open the file.
    public struct OpenFlags: OptionSet, Sendable {
        public let rawValue: Int32
        public init(rawValue: Int32) { self.rawValue = rawValue }

        public static let readOnly = OpenFlags(rawValue: SQLITE_OPEN_READONLY)
        public static let readWrite = OpenFlags(rawValue: SQLITE_OPEN_READWRITE)
        /// Create the file when it does not exist (with `readWrite`).
        public static let create = OpenFlags(rawValue: SQLITE_OPEN_CREATE)
    }

    /// How a transaction takes its locks.
    public enum TransactionKind: String, Sendable {
        /// Locks on first read or write (may fail with SQLITE_BUSY on upgrade).
        case deferred = "DEFERRED"
        /// Takes the write lock at BEGIN (waits up to the busy timeout for it).
        case immediate = "IMMEDIATE"
        case exclusive = "EXCLUSIVE"
    }

    let handle: OpaquePointer
    /// The path the connection was opened with.
    public let path: String

    /// Opens (and with `.create`, creates) the database at `path`.
    ///
    /// - Parameters:
    ///   - fileMode: permissions of a file created here (before SQLite writes anything).
    ///     An existing file keeps its permissions.
    ///   - busyTimeoutMilliseconds: how long a call waits for another connection's lock.
    public init(
        path: String, flags: OpenFlags = [.readWrite, .create], fileMode: mode_t = 0o600,
        busyTimeoutMilliseconds: Int32 = 5000
    ) throws(SQLiteError) {
        try SQLiteLibrary.require(operation: "open \(path)")
        let inMemory = path.isEmpty || path == ":memory:"
        if flags.contains(.create), flags.contains(.readWrite), !inMemory {
            try Self.createFile(path: path, mode: fileMode)
        }
        var db: OpaquePointer?
        let rc = libsqlite.sqlite3_open_v2(path, &db, flags.rawValue | SQLITE_OPEN_NOMUTEX, nil)
        guard rc == SQLITE_OK, let db else {
            let error = SQLiteError.last(db, code: rc == SQLITE_OK ? SQLITE_CANTOPEN : rc, operation: "open \(path)")
            _ = libsqlite.sqlite3_close_v2(db)
            throw error
        }
        self.handle = db
        self.path = path
        _ = libsqlite.sqlite3_extended_result_codes(db, 1)
        _ = libsqlite.sqlite3_busy_timeout(db, busyTimeoutMilliseconds)
        try execute("PRAGMA foreign_keys = ON")
        if flags.contains(.readWrite), !inMemory {
            // Returns the mode now in effect; a file that cannot use WAL keeps its mode.
            _ = try query("PRAGMA journal_mode = WAL") { $0.text(0) }
        }
    }

    deinit {
        _ = libsqlite.sqlite3_close_v2(handle)
    }

    /// Creates `path` with `mode` when it does not exist, so that SQLite never creates the
    /// file itself with the process umask's permissions. `O_EXCL`: an existing file (or a
    /// symbolic link) is left alone.
    private static func createFile(path: String, mode: mode_t) throws(SQLiteError) {
        let fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, mode)
        if fd >= 0 {
            // The umask may have removed bits from `mode`; it may not add any, but set the
            // exact mode so the file is what was asked for.
            let changed = fchmod(fd, mode)
            let chmodErrno = errno
            close(fd)
            guard changed == 0 else {
                throw SQLiteError(
                    code: SQLITE_CANTOPEN, message: String(cString: strerror(chmodErrno)),
                    operation: "set permissions of \(path)")
            }
            return
        }
        let openErrno = errno
        if openErrno == EEXIST { return }
        throw SQLiteError(
            code: SQLITE_CANTOPEN, message: String(cString: strerror(openErrno)), operation: "create \(path)")
    }

    // MARK: Statements

    /// Compiles one SQL statement.
    public func prepare(_ sql: String) throws(SQLiteError) -> SQLiteStatement {
        try SQLiteStatement(database: self, sql: sql)
    }

    /// Runs SQL without parameters: one or more statements separated by semicolons (schema
    /// changes, pragmas). Rows they return are discarded.
    public func execute(_ sql: String) throws(SQLiteError) {
        var message: UnsafeMutablePointer<CChar>?
        let rc = libsqlite.sqlite3_exec(handle, sql, nil, nil, &message)
        defer { libsqlite.sqlite3_free(message) }
        guard rc == SQLITE_OK else {
            let text =
                message.map { String(cString: $0) } ?? libsqlite.sqlite3_errstr(rc).map { String(cString: $0) } ?? ""
            throw SQLiteError(code: rc, message: text, operation: "execute")
        }
    }

    /// Runs one statement with `bindings` to completion and returns the number of rows it
    /// changed.
    @discardableResult
    public func run(_ sql: String, _ bindings: [SQLiteValue] = []) throws(SQLiteError) -> Int {
        let statement = try prepare(sql)
        try statement.bind(bindings)
        while try statement.step() {}
        return changes
    }

    /// Runs one query with `bindings` and maps each row with `row`. The statement passed to
    /// `row` is valid only during that call.
    public func query<T>(_ sql: String, _ bindings: [SQLiteValue] = [], _ row: (SQLiteStatement) -> T)
        throws(SQLiteError) -> [T]
    {
        let statement = try prepare(sql)
        try statement.bind(bindings)
        var rows: [T] = []
        while try statement.step() { rows.append(row(statement)) }
        return rows
    }

    /// The rowid of the last row inserted on this connection.
    public var lastInsertRowID: Int64 { libsqlite.sqlite3_last_insert_rowid(handle) }

    /// Rows changed by the last INSERT, UPDATE or DELETE on this connection.
    public var changes: Int { Int(libsqlite.sqlite3_changes64(handle)) }

    /// Whether a transaction is open on this connection.
    public var isInTransaction: Bool { libsqlite.sqlite3_get_autocommit(handle) == 0 }

    // MARK: Transactions

    /// Runs `body` in a transaction: BEGIN (IMMEDIATE by default, which waits up to the busy
    /// timeout for the write lock), COMMIT when `body` returns, ROLLBACK when it throws (the
    /// error is rethrown). Transactions do not nest.
    @discardableResult
    public func transaction<R>(_ kind: TransactionKind = .immediate, _ body: () throws -> R) throws -> R {
        do {
            try execute("BEGIN \(kind.rawValue) TRANSACTION")
        } catch {
            throw SQLiteError(code: error.code, message: error.message, operation: "begin transaction")
        }
        let result: R
        do {
            result = try body()
        } catch {
            rollbackIfOpen()
            throw error
        }
        do {
            try execute("COMMIT TRANSACTION")
        } catch {
            rollbackIfOpen()
            throw SQLiteError(code: error.code, message: error.message, operation: "commit transaction")
        }
        return result
    }

    /// Rolls back the open transaction, if SQLite has not already done so after an error.
    private func rollbackIfOpen() {
        guard isInTransaction else { return }
        // A failing ROLLBACK leaves nothing better to do; SQLite rolls back on close anyway.
        try? execute("ROLLBACK TRANSACTION")
    }

    // MARK: Schema version

    /// `PRAGMA user_version`: the schema version the application recorded (0 for a new file).
    public func userVersion() throws(SQLiteError) -> Int {
        Int(try query("PRAGMA user_version") { $0.int64(0) }.first ?? 0)
    }

    /// Sets `PRAGMA user_version` (part of the enclosing transaction, if any).
    public func setUserVersion(_ version: Int) throws(SQLiteError) {
        guard version >= 0, version <= Int(Int32.max) else {
            throw SQLiteError(
                code: SQLITE_RANGE, message: "user_version must fit in 32 bits", operation: "set user_version")
        }
        try execute("PRAGMA user_version = \(version)")
    }

    /// The current journal mode ("wal", "delete", "memory", ...).
    public func journalMode() throws(SQLiteError) -> String {
        try query("PRAGMA journal_mode") { $0.text(0) ?? "" }.first ?? ""
    }
}

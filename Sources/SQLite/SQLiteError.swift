import CSQLite

/// Why an SQLite call failed: the operation, SQLite's result code and its message.
///
/// Messages come from `sqlite3_errmsg` (or `sqlite3_errstr` when there is no connection) and
/// name tables, columns and constraints, never bound values; this type adds nothing else.
/// Only this module makes one (the memberwise initializer is internal).
public struct SQLiteError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The extended result code (`SQLITE_BUSY`, `SQLITE_CONSTRAINT_UNIQUE`, ...).
    public var code: Int32
    /// SQLite's message for the failure.
    public var message: String
    /// What was being done: "open", "prepare", "step", "bind", "begin transaction", ...
    public var operation: String

    /// The primary result code (the low byte of ``code``).
    public var primaryCode: Int32 { code & 0xFF }

    /// Another connection held a lock for longer than the busy timeout.
    public var isBusy: Bool { primaryCode == SQLITE_BUSY || primaryCode == SQLITE_LOCKED }

    /// A UNIQUE, NOT NULL, CHECK or FOREIGN KEY constraint failed.
    public var isConstraintViolation: Bool { primaryCode == SQLITE_CONSTRAINT }

    /// The file is not an SQLite database (SQLITE_NOTADB).
    public var isNotADatabase: Bool { primaryCode == SQLITE_NOTADB }

    /// The file or its directory cannot be written (SQLITE_READONLY).
    public var isReadOnly: Bool { primaryCode == SQLITE_READONLY }

    /// The disk (or a quota) is full (SQLITE_FULL).
    public var isDiskFull: Bool { primaryCode == SQLITE_FULL }

    /// The file could not be opened or created (SQLITE_CANTOPEN).
    public var isCannotOpen: Bool { primaryCode == SQLITE_CANTOPEN }

    /// The file is damaged (SQLITE_CORRUPT).
    public var isCorrupt: Bool { primaryCode == SQLITE_CORRUPT }

    public var description: String { "SQLite \(operation) failed: \(message) (code \(code))" }

    /// The error for result code `code` of a call on `db` (nil when there is no connection).
    /// With extended result codes on, `code` is already the extended code.
    static func last(_ db: OpaquePointer?, code: Int32, operation: String) -> SQLiteError {
        let text: String
        if let db, let message = libsqlite.sqlite3_errmsg(db) {
            text = String(cString: message)
        } else if let message = libsqlite.sqlite3_errstr(code) {
            text = String(cString: message)
        } else {
            text = "unknown error"
        }
        return SQLiteError(code: code, message: text, operation: operation)
    }
}

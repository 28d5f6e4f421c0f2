import CSQLite

/// A prepared statement. Owns its `sqlite3_stmt` (finalized on deinit) and keeps its
/// database open while it lives.
///
/// Not Sendable, like ``SQLiteDatabase``: use it where its database is used, one call at a time.
public final class SQLiteStatement {
    let handle: OpaquePointer
    /// Keeps the connection alive (and so valid) for as long as the statement exists.
    public let database: SQLiteDatabase

    init(database: SQLiteDatabase, sql: String) throws(SQLiteError) {
        var statement: OpaquePointer?
        let rc = libsqlite.sqlite3_prepare_v3(database.handle, sql, -1, 0, &statement, nil)
        guard rc == SQLITE_OK, let statement else {
            _ = libsqlite.sqlite3_finalize(statement)
            throw SQLiteError.last(database.handle, code: rc == SQLITE_OK ? SQLITE_MISUSE : rc, operation: "prepare")
        }
        self.handle = statement
        self.database = database
    }

    deinit {
        _ = libsqlite.sqlite3_finalize(handle)
    }

    // MARK: Binding

    /// The number of parameters (`?`, `?NNN`, `:name`) the statement has.
    public var parameterCount: Int32 { libsqlite.sqlite3_bind_parameter_count(handle) }

    /// Binds `value` to the parameter at `index` (1-based). Text and blobs are copied.
    public func bind(_ value: SQLiteValue, at index: Int32) throws(SQLiteError) {
        let rc: Int32
        switch value {
        case .integer(let v):
            rc = libsqlite.sqlite3_bind_int64(handle, index, v)
        case .real(let v):
            rc = libsqlite.sqlite3_bind_double(handle, index, v)
        case .text(let v):
            rc = libsqlite.sqlite3_bind_text64(
                handle, index, v, UInt64(v.utf8.count), mdoc_sqlite_transient(), UInt8(SQLITE_UTF8))
        case .blob(let v):
            if v.isEmpty {
                // A nil pointer would bind NULL: an empty blob is a zero-length blob.
                rc = libsqlite.sqlite3_bind_zeroblob(handle, index, 0)
            } else {
                rc = v.withUnsafeBytes {
                    libsqlite.sqlite3_bind_blob64(
                        handle, index, $0.baseAddress, UInt64($0.count), mdoc_sqlite_transient())
                }
            }
        case .null:
            rc = libsqlite.sqlite3_bind_null(handle, index)
        }
        guard rc == SQLITE_OK else {
            throw SQLiteError.last(database.handle, code: rc, operation: "bind parameter \(index)")
        }
    }

    /// Binds a named parameter (`:name`, `@name` or `$name`, written with its prefix).
    public func bind(_ value: SQLiteValue, named name: String) throws(SQLiteError) {
        let index = libsqlite.sqlite3_bind_parameter_index(handle, name)
        guard index > 0 else {
            throw SQLiteError(code: SQLITE_RANGE, message: "no parameter named \(name)", operation: "bind")
        }
        try bind(value, at: index)
    }

    /// Clears every binding, then binds `values` to parameters 1...n. The count must match.
    public func bind(_ values: [SQLiteValue]) throws(SQLiteError) {
        guard values.count == Int(parameterCount) else {
            throw SQLiteError(
                code: SQLITE_RANGE, message: "\(values.count) values for \(parameterCount) parameters",
                operation: "bind")
        }
        _ = libsqlite.sqlite3_clear_bindings(handle)
        for (offset, value) in values.enumerated() { try bind(value, at: Int32(offset + 1)) }
    }

    // MARK: Running

    /// Runs the statement to its next row: true when a row is available to read, false when
    /// the statement is done.
    @discardableResult
    public func step() throws(SQLiteError) -> Bool {
        let rc = libsqlite.sqlite3_step(handle)
        switch rc {
        case SQLITE_ROW: return true
        case SQLITE_DONE: return false
        default: throw SQLiteError.last(database.handle, code: rc, operation: "step")
        }
    }

    /// Rewinds the statement so it can run again; bindings are kept.
    public func reset() {
        // The result repeats the last step's error, which that step already reported.
        _ = libsqlite.sqlite3_reset(handle)
    }

    /// Rewinds the statement and clears its bindings.
    public func clearBindings() {
        _ = libsqlite.sqlite3_reset(handle)
        _ = libsqlite.sqlite3_clear_bindings(handle)
    }

    // MARK: Columns of the current row

    public var columnCount: Int32 { libsqlite.sqlite3_column_count(handle) }

    public func columnName(_ column: Int32) -> String {
        libsqlite.sqlite3_column_name(handle, column).map { String(cString: $0) } ?? ""
    }

    /// Whether the column of the current row is NULL.
    public func isNull(_ column: Int32) -> Bool { libsqlite.sqlite3_column_type(handle, column) == SQLITE_NULL }

    /// The column as an integer (SQLite's conversion rules: NULL is 0).
    public func int64(_ column: Int32) -> Int64 { libsqlite.sqlite3_column_int64(handle, column) }

    /// The column as a real (NULL is 0.0).
    public func double(_ column: Int32) -> Double { libsqlite.sqlite3_column_double(handle, column) }

    /// The column as text, nil when NULL.
    public func text(_ column: Int32) -> String? {
        guard !isNull(column), let pointer = libsqlite.sqlite3_column_text(handle, column) else { return nil }
        let count = Int(libsqlite.sqlite3_column_bytes(handle, column))
        return String(decoding: UnsafeBufferPointer(start: pointer, count: count), as: UTF8.self)
    }

    /// The column as a blob, nil when NULL.
    public func blob(_ column: Int32) -> [UInt8]? {
        guard !isNull(column) else { return nil }
        let pointer = libsqlite.sqlite3_column_blob(handle, column)
        let count = Int(libsqlite.sqlite3_column_bytes(handle, column))
        guard let pointer, count > 0 else { return [] }
        return [UInt8](UnsafeRawBufferPointer(start: pointer, count: count))
    }

    /// The column in its storage class.
    public func value(_ column: Int32) -> SQLiteValue {
        switch libsqlite.sqlite3_column_type(handle, column) {
        case SQLITE_INTEGER: return .integer(int64(column))
        case SQLITE_FLOAT: return .real(double(column))
        case SQLITE_TEXT: return .text(text(column) ?? "")
        case SQLITE_BLOB: return .blob(blob(column) ?? [])
        default: return .null
        }
    }
}

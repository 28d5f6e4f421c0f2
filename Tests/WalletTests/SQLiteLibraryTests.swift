import Testing

@testable import SQLite

/// libsqlite3 is loaded when a database is first opened, not linked: what the process says when
/// it or one of its functions is missing, and that the installed one loads with every function
/// the SQLite target calls (typed from sqlite3.h itself).
@Suite struct SQLiteLibraryTests {
    @Test("a missing libsqlite3 is named with the package to install")
    func missingLibrary() {
        let result = SQLiteLibrary.load("libsqlite3-absent-for-test.so.0")
        guard case .failure(let error) = result else {
            Issue.record("loading an absent library did not fail")
            return
        }
        #expect(error.isCannotOpen)
        #expect(error.operation == "load libsqlite3-absent-for-test.so.0")
        #expect(error.message.hasPrefix("libsqlite3-absent-for-test.so.0 could not be loaded ("))
        #expect(error.message.hasSuffix("install the package libsqlite3-0"))
    }

    @Test("a library without SQLite's functions names the first one missing")
    func libraryWithoutTheFunctions() {
        let result = SQLiteLibrary.load("libz.so.1")
        guard case .failure(let error) = result else {
            Issue.record("libz.so.1 was taken for libsqlite3")
            return
        }
        #expect(error.message == "libz.so.1 has no sqlite3_open_v2: install libsqlite3-0 3.37 or later")
    }

    @Test("the installed libsqlite3.so.0 loads with every function and opens a database")
    func installedLibrary() throws {
        #expect(SQLiteLibrary.soname == "libsqlite3.so.0")
        try SQLiteLibrary.require(operation: "open")
        let db = try SQLiteDatabase(path: ":memory:")
        #expect(try db.query("SELECT 6 * 7") { $0.int64(0) } == [42])
    }
}

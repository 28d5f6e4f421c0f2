import Foundation
import SQLite
import Testing

/// The SQLite wrapper: typed binding and reading, transactions, user_version, errors, files.
struct SQLiteDatabaseTests {
    @Test func bindsAndReadsEveryType() throws {
        let db = try SQLiteDatabase(path: ":memory:")
        try db.execute("CREATE TABLE t (i INTEGER, r REAL, s TEXT, b BLOB, n TEXT)")
        try db.run(
            "INSERT INTO t VALUES (?, ?, ?, ?, ?)",
            [.integer(Int64.min), .real(1.5), .text("héllo\u{0}world"), .blob([0, 1, 2, 255]), .null])
        try db.run("INSERT INTO t VALUES (?, ?, ?, ?, ?)", [42, 0.25, "", .blob([]), .text(nil)])
        let statement = try db.prepare("SELECT i, r, s, b, n FROM t ORDER BY rowid")
        #expect(try statement.step())
        #expect(statement.int64(0) == Int64.min)
        #expect(statement.double(1) == 1.5)
        #expect(statement.text(2) == "héllo\u{0}world")
        #expect(statement.blob(3) == [0, 1, 2, 255])
        #expect(statement.isNull(4))
        #expect(statement.text(4) == nil)
        #expect(statement.value(0) == .integer(Int64.min))
        #expect(try statement.step())
        #expect(statement.int64(0) == 42)
        #expect(statement.text(2) == "")
        // An empty blob is stored as a zero-length blob, not NULL.
        #expect(statement.blob(3) == [])
        #expect(statement.value(3) == .blob([]))
        #expect(try !statement.step())
    }

    @Test func bindsNamedParametersAndChecksTheCount() throws {
        let db = try SQLiteDatabase(path: ":memory:")
        let statement = try db.prepare("SELECT :a + :b")
        try statement.bind(2, named: ":a")
        try statement.bind(3, named: ":b")
        #expect(try statement.step())
        #expect(statement.int64(0) == 5)
        #expect(throws: SQLiteError.self) { try statement.bind(1, named: ":missing") }
        #expect(throws: SQLiteError.self) { try db.run("SELECT ?", [1, 2]) }
    }

    @Test func aTransactionCommitsOrRollsBack() throws {
        let db = try SQLiteDatabase(path: ":memory:")
        try db.execute("CREATE TABLE t (v INTEGER)")
        try db.transaction { try db.run("INSERT INTO t VALUES (1)") }
        struct Stop: Error {}
        #expect(throws: Stop.self) {
            try db.transaction {
                try db.run("INSERT INTO t VALUES (2)")
                throw Stop()
            }
        }
        #expect(!db.isInTransaction)
        #expect(try db.query("SELECT v FROM t") { $0.int64(0) } == [1])
        // An SQLite error inside the body rolls back too.
        #expect(throws: SQLiteError.self) {
            try db.transaction {
                try db.run("INSERT INTO t VALUES (3)")
                try db.run("INSERT INTO nowhere VALUES (4)")
            }
        }
        #expect(try db.query("SELECT v FROM t") { $0.int64(0) } == [1])
    }

    @Test func userVersionReadsAndWrites() throws {
        let db = try SQLiteDatabase(path: ":memory:")
        #expect(try db.userVersion() == 0)
        try db.setUserVersion(7)
        #expect(try db.userVersion() == 7)
        #expect(throws: SQLiteError.self) { try db.setUserVersion(-1) }
    }

    @Test func errorsCarryCodeMessageAndOperationButNoBoundValue() throws {
        let db = try SQLiteDatabase(path: ":memory:")
        try db.execute("CREATE TABLE t (v TEXT UNIQUE)")
        try db.run("INSERT INTO t VALUES (?)", ["secret-value-123"])
        do {
            try db.run("INSERT INTO t VALUES (?)", ["secret-value-123"])
            Issue.record("a duplicate was accepted")
        } catch {
            #expect(error.isConstraintViolation)
            #expect(error.code == 2067)  // SQLITE_CONSTRAINT_UNIQUE
            #expect(error.operation == "step")
            #expect(error.message.contains("UNIQUE"))
            #expect(!error.description.contains("secret-value-123"))
        }
        #expect(throws: SQLiteError.self) { try db.prepare("SELEC nonsense") }
    }

    @Test func createsTheFile0600InWALMode() throws {
        let dir = try TemporaryDirectory()
        let path = dir.file("test.sqlite")
        let db = try SQLiteDatabase(path: path)
        try db.execute("CREATE TABLE t (v INTEGER); INSERT INTO t VALUES (1)")
        #expect(try db.journalMode() == "wal")
        for file in [path, path + "-wal", path + "-shm"] where FileManager.default.fileExists(atPath: file) {
            #expect(try permissions(file) == 0o600, "\(file)")
        }
        #expect(FileManager.default.fileExists(atPath: path + "-wal"))
    }

    @Test func openingAMissingDirectoryFailsWithTheOperation() {
        #expect {
            try SQLiteDatabase(path: "/nonexistent-\(UUID().uuidString)/x.sqlite")
        } throws: { error in
            (error as? SQLiteError)?.operation.hasPrefix("create") == true
        }
    }
}

func permissions(_ path: String) throws -> Int {
    let attributes = try FileManager.default.attributesOfItem(atPath: path)
    return (attributes[.posixPermissions] as? NSNumber)?.intValue ?? -1
}

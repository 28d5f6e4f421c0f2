import FoundationEssentials
import Glibc
import SQLite
import SecureArea

/// How the credential store's file is opened: never changing a file that is not ours, and
/// safe when several processes create the same new store at once.
///
/// 1. An existing, non-empty file is first looked at read-only: its `application_id`,
///    `user_version` and tables. Another application's database is refused before anything
///    is written to it (opening it read-write would switch it to WAL).
/// 2. The file is then opened read-write (WAL, busy timeout) and migrated in one IMMEDIATE
///    transaction.
/// 3. Both steps are retried, with a short random pause, while SQLite reports the file busy
///    or locked (another process creating or migrating the same store: a few steps of
///    SQLite's, such as switching the journal to WAL, fail at once instead of waiting), for
///    up to ``retryWindow``.
enum StoreOpening {
    /// How long opening keeps retrying while another process holds the file.
    static let retryWindow: Duration = .seconds(15)

    static func open(path: String, secureAreas: SecureAreaRegistry) throws(WalletError) -> SQLiteDatabase {
        let clock = ContinuousClock()
        let deadline = clock.now + retryWindow
        while true {
            do throws(WalletError) {
                try checkOwnership(path: path)
                let database: SQLiteDatabase
                do {
                    database = try SQLiteDatabase(path: path, flags: [.readWrite, .create], fileMode: 0o600)
                } catch {
                    if error.isNotADatabase { throw .notAWallet(path: path, reason: "not an SQLite database") }
                    throw .database(path: path, error)
                }
                try KeyMigration.openAndMigrate(database, path: path, secureAreas: secureAreas)
                return database
            } catch {
                guard case .database(_, let sqlite) = error, sqlite.isBusy, clock.now < deadline else { throw error }
                usleep(UInt32.random(in: 5_000...50_000))
            }
        }
    }

    /// Whether the file's SQLite header (its first 100 bytes) says it is a store of ours: the
    /// magic string and our `application_id` at offset 68, big-endian. The check every start
    /// of a present store passes, without an SQLite connection. A header that says anything
    /// else (a store whose header is still in its WAL, another application's file) gets the
    /// full check.
    static func headerNamesOurStore(path: String) -> Bool {
        let fd = Glibc.open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW)
        guard fd >= 0 else { return false }
        defer { close(fd) }
        var header = [UInt8](repeating: 0, count: 100)
        guard header.withUnsafeMutableBytes({ pread(fd, $0.baseAddress, 100, 0) }) == 100,
            header[0..<16].elementsEqual("SQLite format 3\u{0}".utf8)
        else { return false }
        let applicationID = header[68..<72].reduce(UInt32(0)) { $0 << 8 | UInt32($1) }
        return Int64(Int32(bitPattern: applicationID)) == Schema.applicationID
    }

    /// Refuses, without writing anything, an existing non-empty file that is not an SQLite
    /// database or that belongs to another application. An empty file, a missing one, a
    /// store of ours, and an SQLite file with no tables yet pass.
    static func checkOwnership(path: String) throws(WalletError) {
        // lstat, not FileManager's attributes: those also look up the owner's and group's names
        // (nsswitch, /etc/passwd, /etc/group), half a millisecond at every start for a size.
        var status = stat()
        guard path != ":memory:", !path.isEmpty, lstat(path, &status) == 0, status.st_size > 0 else { return }
        if headerNamesOurStore(path: path) { return }
        let database: SQLiteDatabase
        do {
            database = try SQLiteDatabase(path: path, flags: [.readOnly])
        } catch {
            if error.isNotADatabase { throw .notAWallet(path: path, reason: "not an SQLite database") }
            throw .database(path: path, error)
        }
        do {
            // One read transaction: both values from the same state of a file another process
            // may be creating right now.
            let (applicationID, tables) = try database.transaction(.deferred) {
                (
                    try database.query("PRAGMA application_id") { $0.int64(0) }.first ?? 0,
                    try database.query("SELECT count(*) FROM sqlite_schema") { $0.int64(0) }.first ?? 0
                )
            }
            if applicationID == Schema.applicationID { return }
            if applicationID != 0 {
                throw WalletError.notAWallet(
                    path: path, reason: "its application_id is \(applicationID), not mdoc-holder's")
            }
            if tables > 0 {
                throw WalletError.notAWallet(path: path, reason: "it holds \(tables) tables of another schema")
            }
        } catch let error as WalletError {
            throw error
        } catch let error as SQLiteError {
            if error.isNotADatabase { throw .notAWallet(path: path, reason: "not an SQLite database") }
            throw .database(path: path, error)
        } catch {
            throw .storeLocation(path: path, reason: "\(error)")
        }
    }
}

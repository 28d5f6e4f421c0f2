import BoundedFile
import CBOR
import Consent
import FoundationEssentials
import ISO18013
import MdocCrypto
import SQLite
import SecureArea
import Synchronization

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// The holder's credentials and presentation history, in one SQLite file.
///
/// Several processes may use the same file at once (the CLI next to the running service):
/// the database is in WAL mode (readers never wait for the writer) and a writer waits up to
/// five seconds for another writer. An import is one transaction: it stores every document of
/// the file or none.
///
/// Device private keys are not in the file: a key row names its secure area and holds only
/// what that area needs (a key wrapped under the software area's key-encryption key, a TPM's
/// TSS2 blob). The file is still created 0600 in a directory created 0700; SQLite gives its
/// -wal and -shm files the same permissions. Deleted rows are overwritten (secure_delete).
///
/// Thread safety: `Sendable`. The connection (not thread-safe itself) is used only under
/// `lock`, one call at a time; every other stored property is immutable. Calls block while
/// another thread's call runs (each is a few milliseconds of SQLite work, or up to the busy
/// timeout when another process holds the write lock).
public final class CredentialStore: @unchecked Sendable {
    /// The database file.
    public let path: String
    /// The secure areas keys are made in and used through.
    public let secureAreas: SecureAreaRegistry
    private let lock = Mutex<Void>(())
    private let database: SQLiteDatabase

    /// Opens the store at `path`, creating it (and missing parent directories, 0700) when it
    /// does not exist, and migrating an older schema.
    ///
    /// A store of an older schema whose device keys are plaintext PEM has them moved into
    /// `secureAreas.software` (in the migration's transaction), then the file is VACUUMed.
    ///
    /// - Throws: ``WalletError/schemaTooNew(path:found:supported:)`` for a file written by a
    ///   newer version, ``WalletError/notAWallet(path:reason:)`` for another application's
    ///   file, ``WalletError/storeLocation(path:reason:)`` when the directory cannot be made,
    ///   ``WalletError/secureArea(_:)`` when plaintext keys must move and the software area's
    ///   key-encryption key is missing.
    public init(path: String, secureAreas: SecureAreaRegistry = .resolve()) throws(WalletError) {
        self.path = path
        self.secureAreas = secureAreas
        try Self.refuseDirectory(path)
        try Self.createParentDirectories(of: path)
        database = try StoreOpening.open(path: path, secureAreas: secureAreas)
    }

    /// A store path that names a directory gets a message saying so (SQLite's own is "unable
    /// to open database file").
    private static func refuseDirectory(_ path: String) throws(WalletError) {
        var info = stat()
        if stat(path, &info) == 0, info.st_mode & S_IFMT == S_IFDIR {
            throw .storeLocation(
                path: path,
                reason: "it is a directory; give the path of the store file, such as \(path)/wallet.sqlite")
        }
    }

    /// The schema version this code reads and writes (`PRAGMA user_version`).
    public static var schemaVersion: Int { Schema.currentVersion }

    /// Where the store lives by default:
    /// 1. `$STATE_DIRECTORY/wallet.sqlite` when systemd sets STATE_DIRECTORY (the first path
    ///    when it lists several, separated by ':');
    /// 2. `$XDG_DATA_HOME/mdoc-holder/wallet.sqlite` when XDG_DATA_HOME is an absolute path;
    /// 3. `~/.local/share/mdoc-holder/wallet.sqlite`.
    public static func defaultPath(environment: [String: String] = ProcessInfo.processInfo.environment) -> String {
        if let state = environment["STATE_DIRECTORY"],
            let first = state.split(separator: ":", omittingEmptySubsequences: true).first
        {
            return BoundedFile.path(String(first), "wallet.sqlite")
        }
        if let data = environment["XDG_DATA_HOME"], data.hasPrefix("/") {
            return BoundedFile.path(data, "mdoc-holder/wallet.sqlite")
        }
        let home =
            environment["HOME"].flatMap { $0.isEmpty ? nil : $0 }
            ?? FileManager.default.homeDirectoryForCurrentUser.path
        return BoundedFile.path(home, ".local/share/mdoc-holder/wallet.sqlite")
    }

    /// Creates the missing directories above `path`, each 0700 (an existing directory keeps
    /// its permissions).
    private static func createParentDirectories(of path: String) throws(WalletError) {
        guard path != ":memory:", !path.isEmpty else { return }
        let parent = BoundedFile.directory(of: path)
        guard !parent.isEmpty else { return }
        var missing: [String] = []
        var current = parent
        while !current.isEmpty, current != "/", !FileManager.default.fileExists(atPath: current) {
            missing.append(current)
            current = BoundedFile.directory(of: current)
        }
        for directory in missing.reversed() {
            if mkdir(directory, 0o700) != 0 {
                let code = errno
                if code == EEXIST { continue }  // made by another process meanwhile
                throw .storeLocation(
                    path: path, reason: "cannot create the directory \(directory): \(String(cString: strerror(code)))")
            }
        }
    }

    /// Runs `body` with the connection, under the lock.
    func withDatabase<R>(_ body: (SQLiteDatabase) throws(WalletError) -> R) throws(WalletError) -> R {
        try lock.withLock { (_) throws(WalletError) -> R in try body(database) }
    }

    /// Runs an SQLite call, mapping its error.
    func sql<R>(_ body: () throws(SQLiteError) -> R) throws(WalletError) -> R {
        do {
            return try body()
        } catch {
            throw .database(path: path, error)
        }
    }

    /// Runs `body` in one IMMEDIATE transaction on `db`, mapping errors.
    func transaction<R>(_ db: SQLiteDatabase, _ body: () throws -> R) throws(WalletError) -> R {
        try db.storeTransaction(path: path, body)
    }
}

extension SQLiteDatabase {
    /// Runs `body` in one IMMEDIATE transaction on the store at `path`: a ``WalletError`` as
    /// thrown, an SQLite error as the store's database error.
    func storeTransaction<R>(path: String, _ body: () throws -> R) throws(WalletError) -> R {
        do {
            return try transaction(.immediate, body)
        } catch let error as WalletError {
            throw error
        } catch let error as SQLiteError {
            throw .database(path: path, error)
        } catch {
            throw .storeLocation(path: path, reason: "\(error)")
        }
    }
}

// MARK: - Reading

extension CredentialStore {
    /// Every stored credential, oldest import first (mdocs, then SD-JWT VCs): metadata and
    /// element identifiers or claim paths only.
    /// A credential whose row cannot be read back is listed with ``CredentialSummary/problem``
    /// set (what is wrong and what to do), so one damaged row does not hide the others.
    ///
    /// Whether a row is whole is decided by the same check presentation uses
    /// (``readCredentials(docType:)``): a row listed with a problem is never presented.
    public func list() throws(WalletError) -> [CredentialSummary] {
        let sdJWTProblems = try readSDJWTs(id: nil).unreadable
        return try withDatabase { (db) throws(WalletError) in
            let rows = try sql { () throws(SQLiteError) in
                try db.query(
                    """
                    SELECT id, doc_type, issuer_subject, valid_from, valid_until, imported_at, elements, issuer
                    FROM credentials ORDER BY imported_at, rowid
                    """
                ) { row in
                    (
                        id: row.text(0) ?? "", docType: row.text(1) ?? "", issuer: row.text(2),
                        validFrom: row.double(3), validUntil: row.double(4), importedAt: row.double(5),
                        elements: row.text(6) ?? "[]", receivedFrom: row.text(7)
                    )
                }
            }
            let copies = try sql { () throws(SQLiteError) in try copyCounts(db) }
            let corrupt = try unreadableCredentials(db)
            let statuses = try lastStatuses(db)
            return rows.map { r in
                // What is shown; whether the row is whole was decided above, by the one check.
                let elements = (try? JSONList.decode(r.elements, id: r.id)) ?? []
                let problem = corrupt[r.id]?.description
                return CredentialSummary(
                    id: r.id, docType: r.docType, issuerSubject: r.issuer,
                    validFrom: Date(timeIntervalSince1970: r.validFrom),
                    validUntil: Date(timeIntervalSince1970: r.validUntil),
                    importedAt: Date(timeIntervalSince1970: r.importedAt),
                    elements: elements, problem: problem, receivedFrom: r.receivedFrom, copies: copies[r.id]?.total,
                    unusedCopies: copies[r.id]?.unused, lastStatus: statuses[r.id])
            } + (try sdJWTSummaries(db, problems: sdJWTProblems, copies: copies, statuses: statuses))
        }
    }

    /// One credential's details. Element values, in CBOR diagnostic notation with byte strings
    /// elided to their length, only when `includeValues`.
    public func show(id: String, includeValues: Bool = false) throws(WalletError) -> CredentialDetail {
        var detail = try showWithoutStatus(id: id, includeValues: includeValues)
        detail.lastStatus = try withDatabase { (db) throws(WalletError) in try lastStatuses(db)[id] }
        return detail
    }

    private func showWithoutStatus(id: String, includeValues: Bool) throws(WalletError) -> CredentialDetail {
        if let detail = try showSDJWT(id: id, includeValues: includeValues) { return detail }
        let row = try loadRow(id: id)
        let issuerSigned = try row.issuerSigned()
        let mso: MobileSecurityObject
        do {
            mso = try issuerSigned.mobileSecurityObject().mso
        } catch {
            throw .corruptCredential(id: id, reason: "\(error)")
        }
        let elements = issuerSigned.nameSpaces.flatMap { ns in
            ns.items.map { item in
                CredentialDetail.Element(
                    id: "\(ns.name):\(item.elementIdentifier)",
                    value: includeValues ? item.elementValue.diagnostic(maxBytes: 0) : nil)
            }
        }
        return CredentialDetail(
            id: row.id, format: "mso_mdoc", docType: row.docType, issuerSubject: row.issuerSubject,
            validFrom: mso.validityInfo.validFrom, validUntil: mso.validityInfo.validUntil,
            signed: mso.validityInfo.signed, expectedUpdate: mso.validityInfo.expectedUpdate,
            importedAt: row.importedAt, digestAlgorithm: mso.digestAlgorithm,
            deviceKeyCurve: mso.deviceKey.curve.rawValue, elements: elements)
    }

    /// The credential with `id`, ready to present.
    public func credential(id: String) throws(WalletError) -> StoredCredential {
        try loadRow(id: id).stored(secureAreas)
    }

    /// The credentials of `docType` (every credential for nil), most recent import first.
    /// Credentials whose row cannot be read back are left out; ``readCredentials(docType:)``
    /// names them.
    public func credentials(docType: String? = nil) throws(WalletError) -> [StoredCredential] {
        try readCredentials(docType: docType).readable
    }

    /// The credentials of `docType` (every one for nil) that can be read back, most recent
    /// import first, and the ones that cannot.
    public func readCredentials(docType: String? = nil) throws(WalletError) -> (
        readable: [StoredCredential], unreadable: [UnreadableRow]
    ) {
        let rows = try withDatabase { (db) throws(WalletError) in
            try sql { () throws(SQLiteError) in try presentedRows(db, docType: docType) }
        }
        return sorted(rows)
    }

    /// The rows of `docType` (every one for nil), most recent import first, each with the
    /// issuer data and key of the copy a presentation would use (read under the lock already
    /// held by the caller).
    private func presentedRows(_ db: SQLiteDatabase, docType: String?) throws(SQLiteError) -> [Row] {
        let rows: [Row]
        if let docType {
            rows = try db.query(
                "SELECT \(Row.columns) FROM \(Row.from) WHERE c.doc_type = ? ORDER BY c.imported_at DESC, c.rowid DESC",
                [.text(docType)], Row.init)
        } else {
            rows = try db.query(
                "SELECT \(Row.columns) FROM \(Row.from) ORDER BY c.imported_at DESC, c.rowid DESC", [], Row.init)
        }
        return try rows.map { (row) throws(SQLiteError) in try withPreferredCopy(row, db) }
    }

    /// The rows that read back as credentials, and the others with what is wrong with them:
    /// ``Row/stored(_:)`` is the one check of whether a row is whole, for `list` and for
    /// presentation alike.
    private func sorted(_ rows: [Row]) -> (readable: [StoredCredential], unreadable: [UnreadableRow]) {
        var readable: [StoredCredential] = []
        var unreadable: [UnreadableRow] = []
        for row in rows {
            do {
                readable.append(try row.stored(secureAreas))
            } catch {
                unreadable.append(UnreadableRow(kind: .credential, id: row.id, reason: Self.columnProblem(error)))
            }
        }
        return (readable, unreadable)
    }

    /// Which part of a credential row failed to read, without the error's details (which
    /// could quote what the row holds).
    static func columnProblem(_ error: WalletError) -> String {
        if case .corruptCredential(_, let reason) = error, reason == Row.elementListProblem {
            return Row.elementListProblem
        }
        if case .corruptCredential(_, let reason) = error, reason.contains("device key") {
            return "its device key is not readable"
        }
        if case .secureArea = error { return "its device key's secure area cannot be used" }
        return "its IssuerSigned data is not readable"
    }

    /// Credentials that presentation would leave out (element list, issuer data or device key
    /// not readable), by ID: the same rows, copies and check as ``readCredentials(docType:)``
    /// (read under the lock already held by the caller).
    private func unreadableCredentials(_ db: SQLiteDatabase) throws(WalletError) -> [String: UnreadableRow] {
        let rows = try sql { () throws(SQLiteError) in try presentedRows(db, docType: nil) }
        return Dictionary(sorted(rows).unreadable.map { ($0.id, $0) }, uniquingKeysWith: { first, _ in first })
    }

    /// Deletes the credential with `id` (its history stays).
    ///
    /// A credential received over OpenID4VCI in copies (an mdoc, an SD-JWT VC batch) takes
    /// every copy and its keys with it (they were made for it alone): their rows go in the same
    /// transaction, then their secure area forgets them.
    public func delete(id: String) throws(WalletError) {
        let (changed, keys) = try withDatabase { (db) throws(WalletError) in
            try transaction(db) { () throws -> (Int, [StoredKey]) in
                let owned = try db.query(
                    """
                    SELECT \(KeyRows.joinedColumns)
                    FROM credential_copies cc JOIN credentials c ON c.id = cc.credential_id JOIN keys k ON k.id = cc.key_id
                    WHERE cc.credential_id = ?1 AND c.issuer IS NOT NULL
                    UNION ALL SELECT \(KeyRows.joinedColumns)
                    FROM sd_jwt_copies sc JOIN keys k ON k.id = sc.key_id WHERE sc.credential_id = ?1
                    """, [.text(id)]
                ) { KeyRows.read($0) }.compactMap { $0 }
                _ = try db.run("DELETE FROM credential_copies WHERE credential_id = ?", [.text(id)])
                _ = try db.run("DELETE FROM sd_jwt_copies WHERE credential_id = ?", [.text(id)])
                let changed =
                    try db.run("DELETE FROM credentials WHERE id = ?", [.text(id)])
                    + db.run("DELETE FROM sd_jwt_credentials WHERE id = ?", [.text(id)])
                var removed: [StoredKey] = []
                for key in owned {
                    let used = try db.query(
                        """
                        SELECT 1 FROM credentials WHERE key_id = ?1 UNION SELECT 1 FROM credential_copies WHERE key_id = ?1
                        UNION SELECT 1 FROM sd_jwt_credentials WHERE key_id = ?1
                        UNION SELECT 1 FROM sd_jwt_copies WHERE key_id = ?1
                        """, [.text(key.id)]
                    ) { _ in true }
                    guard used.isEmpty else { continue }
                    _ = try db.run("DELETE FROM keys WHERE id = ?", [.text(key.id)])
                    removed.append(key)
                }
                return (changed, removed)
            }
        }
        guard changed > 0 else { throw .unknownCredential(id: id) }
        for key in keys { try? secureAreas.area(key.area).deleteKey(key) }
    }

    private func loadRow(id: String) throws(WalletError) -> Row {
        let rows = try withDatabase { (db) throws(WalletError) in
            try sql { () throws(SQLiteError) in
                try db.query("SELECT \(Row.columns) FROM \(Row.from) WHERE c.id = ?", [.text(id)], Row.init).map {
                    (row) throws(SQLiteError) in try withPreferredCopy(row, db)
                }
            }
        }
        guard let row = rows.first else { throw .unknownCredential(id: id) }
        return row
    }

    /// `row` with the issuer data and key of the copy a presentation uses, for a credential
    /// received in several copies.
    private func withPreferredCopy(_ row: Row, _ db: SQLiteDatabase) throws(SQLiteError) -> Row {
        guard let copy = try preferredCopy(db, credentialID: row.id) else { return row }
        var row = row
        row.issuerSignedBytes = copy.issuerSigned
        row.key = copy.key
        return row
    }

    /// A row of `credentials` with its key, as read.
    struct Row {
        static let columns =
            "c.id, c.doc_type, c.issuer_signed, c.issuer_subject, c.valid_from, c.valid_until, c.imported_at, c.elements, "
            + KeyRows.joinedColumns
        static let from = "credentials c LEFT JOIN keys k ON k.id = c.key_id"
        var id: String
        var docType: String
        var issuerSignedBytes: [UInt8]
        var issuerSubject: String?
        var validFrom: Date
        var validUntil: Date
        var importedAt: Date
        /// The `elements` column: the JSON list of element identifiers `list` shows.
        var elementList: String?
        var key: StoredKey?

        /// Why a row whose element list does not read back is not whole.
        static let elementListProblem = "its element list is not readable"

        init(_ s: SQLiteStatement) {
            id = s.text(0) ?? ""
            docType = s.text(1) ?? ""
            issuerSignedBytes = s.blob(2) ?? []
            issuerSubject = s.text(3)
            validFrom = Date(timeIntervalSince1970: s.double(4))
            validUntil = Date(timeIntervalSince1970: s.double(5))
            importedAt = Date(timeIntervalSince1970: s.double(6))
            elementList = s.text(7)
            key = KeyRows.read(s, at: 8)
        }

        func issuerSigned() throws(WalletError) -> IssuerSigned {
            do {
                return try IssuerSigned(bytes: issuerSignedBytes)
            } catch {
                throw .corruptCredential(id: id, reason: "\(error)")
            }
        }

        /// The credential with a handle on its key in its area (nothing is unwrapped or loaded
        /// here: that happens when the key is used).
        ///
        /// The one check of whether a row is whole, which `list` and presentation share: its
        /// element list, its device key and its IssuerSigned all read back.
        func stored(_ areas: SecureAreaRegistry) throws(WalletError) -> StoredCredential {
            guard (try? JSONList.decode(elementList ?? "[]", id: id)) != nil else {
                throw .corruptCredential(id: id, reason: Self.elementListProblem)
            }
            guard let key else {
                throw .corruptCredential(id: id, reason: "its device key row is missing or names an unknown area")
            }
            let deviceKey: SecureAreaKey
            do {
                deviceKey = try areas.deviceKey(key)
            } catch {
                throw .secureArea(error)
            }
            return StoredCredential(
                id: id, docType: docType, issuerSigned: try issuerSigned(), issuerSignedBytes: issuerSignedBytes,
                deviceKey: deviceKey, validFrom: validFrom, validUntil: validUntil)
        }
    }
}

// MARK: - History

extension CredentialStore {
    /// Adds a history entry.
    public func record(_ entry: HistoryEntry) throws(WalletError) {
        let elements = JSONList.encode(entry.elementsSent)
        try withDatabase { (db) throws(WalletError) in
            _ = try sql { () throws(SQLiteError) in
                try db.run(
                    """
                    INSERT INTO history (time, channel, requester_name, requester_identifier, authentication,
                        doc_type, elements_sent, decision, decision_reason, copies, use_case)
                    VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
                    """,
                    [
                        .real(entry.time.timeIntervalSince1970), .text(entry.channel.rawValue),
                        .text(entry.requesterName), .text(entry.requesterIdentifier), .text(entry.authentication),
                        .text(entry.docType), .text(elements), .text(entry.decision.name), .text(entry.decision.reason),
                        entry.copies.map { .integer(Int64($0)) } ?? .null, .text(entry.useCase),
                    ])
            }
        }
    }

    /// Every history entry that can be read back, oldest first (``readHistory()`` also names
    /// the ones that cannot).
    public func history() throws(WalletError) -> [HistoryEntry] {
        try readHistory().readable
    }

    /// Every history entry, oldest first: the readable ones, and the ones that cannot be read
    /// back.
    public func readHistory() throws(WalletError) -> (readable: [HistoryEntry], unreadable: [UnreadableRow]) {
        let rows = try withDatabase { (db) throws(WalletError) in
            try sql { () throws(SQLiteError) in
                try db.query(
                    """
                    SELECT id, time, channel, requester_name, requester_identifier, authentication, doc_type,
                        elements_sent, decision, decision_reason, copies, use_case
                    FROM history ORDER BY time, id
                    """
                ) { s in
                    (
                        id: s.int64(0), time: s.double(1), channel: s.text(2) ?? "", name: s.text(3) ?? "",
                        identifier: s.text(4), authentication: s.text(5) ?? "", docType: s.text(6) ?? "",
                        elements: s.text(7) ?? "[]", decision: s.text(8) ?? "", reason: s.text(9),
                        copies: s.isNull(10) ? nil : Int(s.int64(10)), useCase: s.text(11)
                    )
                }
            }
        }
        var readable: [HistoryEntry] = []
        var unreadable: [UnreadableRow] = []
        for r in rows {
            guard let channel = PresentationChannel(rawValue: r.channel),
                let decision = HistoryDecision(name: r.decision, reason: r.reason)
            else {
                unreadable.append(
                    UnreadableRow(kind: .historyEntry, id: "\(r.id)", reason: "unknown channel or decision"))
                continue
            }
            guard let elements = try? JSONList.decode(history: r.elements, entry: r.id) else {
                unreadable.append(
                    UnreadableRow(kind: .historyEntry, id: "\(r.id)", reason: "its element list is not readable"))
                continue
            }
            readable.append(
                HistoryEntry(
                    time: Date(timeIntervalSince1970: r.time), channel: channel, requesterName: r.name,
                    requesterIdentifier: r.identifier, authentication: r.authentication, docType: r.docType,
                    elementsSent: elements, decision: decision, copies: r.copies, useCase: r.useCase))
        }
        return (readable, unreadable)
    }
}

/// Lists of "namespace:element" stored as JSON arrays.
enum JSONList {
    static func encode(_ list: [String]) -> String {
        // Encoding an array of strings cannot fail.
        (try? String(decoding: JSONEncoder().encode(list), as: UTF8.self)) ?? "[]"
    }

    static func decode(_ text: String, id: String) throws(WalletError) -> [String] {
        do {
            return try JSONDecoder().decode([String].self, from: Data(text.utf8))
        } catch {
            throw .corruptCredential(id: id, reason: "its element list is not a JSON array of strings")
        }
    }

    static func decode(history text: String, entry: Int64) throws(WalletError) -> [String] {
        do {
            return try JSONDecoder().decode([String].self, from: Data(text.utf8))
        } catch {
            throw .corruptHistory(entry: entry, reason: "its element list is not a JSON array of strings")
        }
    }
}

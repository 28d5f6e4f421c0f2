import Foundation
import SQLite
import SecureArea
import Testing

@testable import Wallet

/// Where the store lives, its file permissions, its schema versions, and two processes
/// sharing it.
struct StoreFileTests {
    // MARK: Location

    @Test func defaultPathPrefersStateDirectoryThenXDGThenHome() {
        #expect(
            CredentialStore.defaultPath(environment: ["STATE_DIRECTORY": "/var/lib/mdoc-holder", "HOME": "/home/u"])
                == "/var/lib/mdoc-holder/wallet.sqlite")
        #expect(
            CredentialStore.defaultPath(environment: ["STATE_DIRECTORY": "/var/lib/a:/var/lib/b"])
                == "/var/lib/a/wallet.sqlite")
        #expect(
            CredentialStore.defaultPath(environment: ["XDG_DATA_HOME": "/home/u/data", "HOME": "/home/u"])
                == "/home/u/data/mdoc-holder/wallet.sqlite")
        // A relative XDG_DATA_HOME is ignored, as the XDG specification says.
        #expect(
            CredentialStore.defaultPath(environment: ["XDG_DATA_HOME": "data", "HOME": "/home/u"])
                == "/home/u/.local/share/mdoc-holder/wallet.sqlite")
        #expect(
            CredentialStore.defaultPath(environment: ["HOME": "/home/u/"])
                == "/home/u/.local/share/mdoc-holder/wallet.sqlite")
    }

    @Test func createsParentDirectories0700AndTheFiles0600() throws {
        let dir = try TemporaryDirectory()
        let path = dir.file("a/b/wallet.sqlite")
        let store = try CredentialStore(path: path, secureAreas: .inMemory)
        try store.import(
            fileBytes: AnnexD.issuerSigned, deviceKeyPEM: try AnnexD.deviceKeyPEM(), trustAnchors: [try AnnexD.iaca()],
            at: AnnexD.inValidity)
        #expect(try permissions(dir.file("a")) == 0o700)
        #expect(try permissions(dir.file("a/b")) == 0o700)
        #expect(try permissions(path) == 0o600)
        // The store is open, so its WAL file exists and holds the import.
        #expect(FileManager.default.fileExists(atPath: path + "-wal"))
        for companion in [path + "-wal", path + "-shm"] where FileManager.default.fileExists(atPath: companion) {
            #expect(try permissions(companion) == 0o600, "\(companion)")
        }
    }

    // MARK: Schema

    @Test func aNewStoreIsAtTheCurrentSchemaVersion() throws {
        let dir = try TemporaryDirectory()
        _ = try dir.store()
        let db = try SQLiteDatabase(path: dir.file("wallet.sqlite"))
        #expect(try db.userVersion() == CredentialStore.schemaVersion)
        #expect(CredentialStore.schemaVersion == 9)
    }

    /// The version-1 schema, frozen as release 1 wrote it.
    static let version1 = """
        CREATE TABLE credentials (
            id TEXT PRIMARY KEY NOT NULL, doc_type TEXT NOT NULL, issuer_signed BLOB NOT NULL,
            device_key_pem TEXT NOT NULL, issuer_subject TEXT, valid_from REAL NOT NULL,
            valid_until REAL NOT NULL, imported_at REAL NOT NULL, elements TEXT NOT NULL
        ) STRICT;
        CREATE TABLE history (
            id INTEGER PRIMARY KEY, time REAL NOT NULL, channel TEXT NOT NULL, requester_name TEXT NOT NULL,
            requester_identifier TEXT, authentication TEXT NOT NULL, doc_type TEXT NOT NULL,
            elements_sent TEXT NOT NULL,
            decision TEXT NOT NULL CHECK (decision IN ('sent', 'declined', 'failed')), decision_reason TEXT
        ) STRICT;
        PRAGMA application_id = 1835298659;
        PRAGMA user_version = 1;
        """

    @Test func opensAnOlderDatabaseAndMigratesIt() throws {
        let dir = try TemporaryDirectory()
        let path = dir.file("wallet.sqlite")
        do {
            let old = try SQLiteDatabase(path: path)
            try old.execute(Self.version1)
            try old.run(
                """
                INSERT INTO history (time, channel, requester_name, authentication, doc_type, elements_sent, decision)
                VALUES (1700000000, 'ble', 'Old reader', 'not authenticated', 'org.iso.18013.5.1.mDL',
                        '["org.iso.18013.5.1:age_over_21"]', 'sent')
                """)
        }
        let store = try CredentialStore(path: path, secureAreas: .inMemory)
        let history = try store.history()
        #expect(history.map(\.requesterName) == ["Old reader"])
        #expect(history.first?.elementsSent == ["org.iso.18013.5.1:age_over_21"])
        let db = try SQLiteDatabase(path: path)
        #expect(try db.userVersion() == CredentialStore.schemaVersion)
        let indexes = try db.query("SELECT name FROM sqlite_schema WHERE type = 'index' AND name LIKE '%_by_%'") {
            $0.text(0) ?? ""
        }
        #expect(
            Set(indexes) == [
                "credentials_by_doc_type", "history_by_time", "credentials_by_key", "sd_jwt_credentials_by_vct",
                "sd_jwt_credentials_by_key", "sd_jwt_copies_by_key",
            ])
        // And it works as a current store.
        let ids = try store.import(
            fileBytes: AnnexD.issuerSigned, deviceKeyPEM: try AnnexD.deviceKeyPEM(), trustAnchors: [try AnnexD.iaca()],
            at: AnnexD.inValidity)
        #expect(try store.list().map(\.id) == ids)
    }

    @Test func refusesADatabaseFromANewerVersion() throws {
        let dir = try TemporaryDirectory()
        let path = dir.file("wallet.sqlite")
        _ = try dir.store()
        try SQLiteDatabase(path: path).setUserVersion(99)
        #expect(throws: WalletError.schemaTooNew(path: path, found: 99, supported: CredentialStore.schemaVersion)) {
            try CredentialStore(path: path, secureAreas: .inMemory)
        }
        #expect("\(WalletError.schemaTooNew(path: path, found: 99, supported: 2))".contains("newer mdoc-holder"))
        // The file is left as it was.
        #expect(try SQLiteDatabase(path: path).userVersion() == 99)
    }

    @Test func refusesAnotherApplicationsFiles() throws {
        let dir = try TemporaryDirectory()
        let other = dir.file("other.sqlite")
        try SQLiteDatabase(path: other).execute("CREATE TABLE notes (text TEXT)")
        #expect {
            try CredentialStore(path: other, secureAreas: .inMemory)
        } throws: { error in
            if case .notAWallet = error as? WalletError { return true }
            return false
        }
        let text = dir.file("text.sqlite")
        try Data(repeating: 0x41, count: 4096).write(to: URL(fileURLWithPath: text))
        #expect {
            try CredentialStore(path: text, secureAreas: .inMemory)
        } throws: { error in
            if case .notAWallet = error as? WalletError { return true }
            return false
        }
    }

    // MARK: Sharing

    @Test func twoStoresOnOneFileImportAndListAtOnce() async throws {
        let dir = try TemporaryDirectory()
        let path = dir.file("wallet.sqlite")
        let writer = try CredentialStore(path: path, secureAreas: .inMemory)
        let reader = try CredentialStore(path: path, secureAreas: .inMemory)
        let keyPEM = try AnnexD.deviceKeyPEM()
        let anchors = [try AnnexD.iaca()]
        let files = [AnnexD.issuerSigned, try AnnexD.partialIssuerSigned()]
        try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask {
                for round in 0..<20 {
                    let ids = try writer.import(
                        fileBytes: files[round % 2], deviceKeyPEM: keyPEM, trustAnchors: anchors, at: AnnexD.inValidity)
                    if round < 19 { try writer.delete(id: ids[0]) }
                }
            }
            group.addTask {
                for _ in 0..<200 {
                    let list = try reader.list()
                    #expect(list.count <= 1)
                }
            }
            try await group.waitForAll()
        }
        #expect(try reader.list().count == 1)
    }

    @Test func aWriterWaitsForAnotherWritersLockAndReadersDoNotWait() async throws {
        let dir = try TemporaryDirectory()
        let path = dir.file("wallet.sqlite")
        let store = try CredentialStore(path: path, secureAreas: .inMemory)
        let keyPEM = try AnnexD.deviceKeyPEM()
        let anchors = [try AnnexD.iaca()]
        // Another process's connection holds the write lock.
        let other = try SQLiteDatabase(path: path)
        try other.execute("BEGIN IMMEDIATE")
        try other.run("DELETE FROM history")
        // Readers go on (WAL)...
        #expect(try store.list().isEmpty)
        // ...and a writer waits for the lock (busy timeout) instead of failing. The other
        // writer commits from a GCD thread: with the tests running in parallel on two cores,
        // a Task's sleep can be held up for longer than the busy timeout while cooperative
        // threads are blocked in SQLite, which made this test fail under load.
        nonisolated(unsafe) let otherWriter = other
        let committed = DispatchSemaphore(value: 0)
        DispatchQueue.global().asyncAfter(deadline: .now() + .milliseconds(300)) {
            try? otherWriter.execute("COMMIT")
            committed.signal()
        }
        let ids = try store.import(
            fileBytes: AnnexD.issuerSigned, deviceKeyPEM: keyPEM, trustAnchors: anchors, at: AnnexD.inValidity)
        committed.wait()
        #expect(try store.list().map(\.id) == ids)
    }

    @Test func oneStoreIsSafeToShareBetweenTasks() async throws {
        let dir = try TemporaryDirectory()
        let store = try dir.store()
        try await withThrowingTaskGroup(of: Void.self) { group in
            for n in 0..<8 {
                group.addTask {
                    for k in 0..<10 {
                        try store.record(
                            HistoryEntry(
                                channel: .ble, requesterName: "task \(n)", requesterIdentifier: nil,
                                authentication: "not authenticated", docType: "d", elementsSent: ["ns:e\(k)"],
                                decision: .sent))
                        _ = try store.history()
                    }
                }
            }
            try await group.waitForAll()
        }
        #expect(try store.history().count == 80)
    }
}

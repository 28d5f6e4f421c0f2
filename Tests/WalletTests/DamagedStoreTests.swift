import Foundation
import SQLite
import Testing

@testable import Wallet

/// The store leaves other applications' files exactly as they were, and one damaged row does
/// not take the rest of the store down.
struct DamagedStoreTests {
    /// A database of another application, in rollback-journal mode, as most are.
    static func foreignDatabase(at path: String, applicationID: Int64) throws {
        let db = try SQLiteDatabase(path: path)
        _ = try db.query("PRAGMA journal_mode = DELETE") { $0.text(0) }
        try db.execute("CREATE TABLE notes (text TEXT); INSERT INTO notes VALUES ('keep me');")
        try db.execute("PRAGMA application_id = \(applicationID)")
    }

    @Test(arguments: [Int64(0), 0x1234_5678])
    func anotherApplicationsDatabaseIsRefusedWithoutChangingABit(applicationID: Int64) throws {
        let dir = try TemporaryDirectory()
        let path = dir.file("notes.sqlite")
        try Self.foreignDatabase(at: path, applicationID: applicationID)
        let before = try Data(contentsOf: URL(fileURLWithPath: path))
        let error = #expect(throws: WalletError.self) { try CredentialStore(path: path) }
        guard case .notAWallet? = error else {
            Issue.record("expected notAWallet, got \(String(describing: error))")
            return
        }
        #expect(try Data(contentsOf: URL(fileURLWithPath: path)) == before, "the foreign file was changed")
        #expect(!FileManager.default.fileExists(atPath: path + "-wal"))
        #expect(!FileManager.default.fileExists(atPath: path + "-shm"))
    }

    @Test func theHeaderAloneTellsAStoreOfOursFromAnyOtherFile() throws {
        let dir = try TemporaryDirectory()
        let store = dir.file("wallet.sqlite")
        do { _ = try CredentialStore(path: store, secureAreas: .inMemory) }
        #expect(StoreOpening.headerNamesOurStore(path: store))
        let foreign = dir.file("notes.sqlite")
        try Self.foreignDatabase(at: foreign, applicationID: 0x1234_5678)
        #expect(!StoreOpening.headerNamesOurStore(path: foreign))
        let text = dir.file("notes.txt")
        try Data(repeating: 0x41, count: 200).write(to: URL(fileURLWithPath: text))
        #expect(!StoreOpening.headerNamesOurStore(path: text))
        #expect(!StoreOpening.headerNamesOurStore(path: dir.file("missing.sqlite")))
        // The store still opens through the fast path.
        _ = try CredentialStore(path: store, secureAreas: .inMemory)
    }

    @Test func aStorePathThatIsADirectorySaysSoAndWhatToDo() throws {
        let dir = try TemporaryDirectory()
        let error = #expect(throws: WalletError.self) { try CredentialStore(path: dir.path) }
        #expect(error?.description.contains("it is a directory") == true)
        #expect(error?.description.contains("wallet.sqlite") == true)
    }

    /// Two copies of the Annex D credential; the second one damaged as `damage` says.
    static func storeWithADamagedCopy(_ dir: TemporaryDirectory, damage: String) throws -> CredentialStore {
        let store = try dir.store()
        try store.import(
            fileBytes: AnnexD.issuerSigned, deviceKeyPEM: try AnnexD.deviceKeyPEM(), trustAnchors: [try AnnexD.iaca()],
            at: AnnexD.inValidity)
        let db = try SQLiteDatabase(path: store.path)
        try db.execute(
            """
            INSERT INTO credentials (id, doc_type, issuer_signed, key_id, issuer_subject, valid_from,
                valid_until, imported_at, elements)
            SELECT 'ffffffffffffffff', doc_type, issuer_signed, key_id, issuer_subject, valid_from,
                valid_until, imported_at + 1, elements FROM credentials;
            INSERT INTO keys (id, secure_area, curve, public_key, key_blob, requires_passphrase, created_at)
            SELECT 'eeeeeeeeeeeeeeee', 'carrier-pigeon', curve, public_key, key_blob, requires_passphrase, created_at
            FROM keys;
            UPDATE credentials SET \(damage) WHERE id = 'ffffffffffffffff';
            """)
        return store
    }

    @Test(arguments: [
        "elements = 'not json'", "issuer_signed = x'00'",
        "key_id = 'eeeeeeeeeeeeeeee'",
    ])
    func oneDamagedCredentialIsListedMarkedAndTheOthersStillPresent(damage: String) throws {
        let dir = try TemporaryDirectory()
        let store = try Self.storeWithADamagedCopy(dir, damage: damage)
        let list = try store.list()
        #expect(list.count == 2)
        let broken = list.filter { $0.problem != nil }
        #expect(broken.map(\.id) == ["ffffffffffffffff"])
        #expect(broken.first?.problem?.contains("credentials delete ffffffffffffffff") == true)
        var unreadable: [UnreadableRow] = []
        let presentable = try store.presentableCredentials(at: AnnexD.inValidity) { unreadable.append($0) }
        // What list marks damaged is what presentation leaves out, for the same reason.
        #expect(presentable.count == 1)
        #expect(presentable.first?.id != "ffffffffffffffff")
        #expect(unreadable.map(\.id) == ["ffffffffffffffff"])
        #expect(broken.first?.problem == unreadable.first?.description)
        // The reason names the column, never its content.
        #expect(unreadable.first.map { !$0.description.contains("carrier-pigeon") } == true)
        #expect(unreadable.first.map { !$0.description.contains("not json") } == true)
        if damage.hasPrefix("key_id") {
            #expect(unreadable.first?.description.contains("device key") == true)
        }
        if damage.hasPrefix("elements") {
            #expect(unreadable.first?.reason == "its element list is not readable")
            // The issuer data and key still read: only the shared check leaves it out.
            #expect(throws: WalletError.self) { try store.credential(id: "ffffffffffffffff") }
        }
    }

    @Test func oneDamagedHistoryEntryIsSkippedAndNamed() throws {
        let dir = try TemporaryDirectory()
        let store = try dir.store()
        try store.record(
            HistoryEntry(
                channel: .ble, requesterName: "r", requesterIdentifier: nil, authentication: "none",
                docType: AnnexD.mDL, elementsSent: ["a:b"], decision: .sent))
        try SQLiteDatabase(path: store.path).execute(
            """
            INSERT INTO history (time, channel, requester_name, authentication, doc_type, elements_sent, decision)
            VALUES (1, 'carrier-pigeon', 'x', 'none', 'd', '[]', 'sent');
            INSERT INTO history (time, channel, requester_name, authentication, doc_type, elements_sent, decision)
            VALUES (2, 'ble', 'x', 'none', 'd', '{', 'sent');
            """)
        let (readable, unreadable) = try store.readHistory()
        #expect(readable.map(\.requesterName) == ["r"])
        #expect(unreadable.count == 2)
        #expect(try store.history().count == 1)
    }
}

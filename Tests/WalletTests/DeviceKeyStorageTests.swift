import Foundation
import MdocCrypto
import SQLite
import SecureArea
import Testing

@testable import Wallet

/// Device keys are never in the store's files: after an import, and after an old store's
/// plaintext keys are migrated, no file of the store's directory holds the private scalar, its
/// PKCS#8 encoding or a PEM "PRIVATE KEY" marker; an interrupted migration leaves the old store
/// as it was.
struct DeviceKeyStorageTests {
    /// A software area whose KEK file is in a directory of its own, beside the store's.
    static func areas(_ dir: TemporaryDirectory) -> SecureAreaRegistry {
        SecureAreaRegistry(
            software: SoftwareSecureArea(source: .userConfiguration(path: dir.file("config/kek"))),
            tpm2: TPM2SecureArea(tcti: "swtpm:host=127.0.0.1,port=1"))
    }

    /// Every file of `directory` whose bytes contain the key in any of its forms.
    static func filesHoldingTheKey(in directory: String) throws -> [String] {
        let key = try PrivateKey(pem: try AnnexD.deviceKeyPEM())
        let needles: [[UInt8]] = [
            try key.rawPrivateKey().bytes, try key.pkcs8DER(), Array("PRIVATE KEY".utf8),
        ]
        var found: [String] = []
        for name in try FileManager.default.contentsOfDirectory(atPath: directory) {
            let bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: directory + "/" + name)))
            if needles.contains(where: { AnnexD.firstIndex(of: $0, in: bytes) != nil }) { found.append(name) }
        }
        return found
    }

    @Test func afterAnImportNoFileOfTheStoreHoldsThePrivateKey() throws {
        let dir = try TemporaryDirectory()
        let storeDirectory = dir.file("store")
        let store = try CredentialStore(path: storeDirectory + "/wallet.sqlite", secureAreas: Self.areas(dir))
        try store.import(
            fileBytes: AnnexD.issuerSigned, deviceKeyPEM: try AnnexD.deviceKeyPEM(), trustAnchors: [try AnnexD.iaca()],
            at: AnnexD.inValidity)
        // The WAL is there and holds the import.
        #expect(FileManager.default.fileExists(atPath: storeDirectory + "/wallet.sqlite-wal"))
        #expect(try Self.filesHoldingTheKey(in: storeDirectory) == [])
        // The KEK was made in the configuration directory, 0600, not beside the store.
        #expect(try permissions(dir.file("config/kek")) == 0o600)
        #expect(try permissions(dir.file("config")) == 0o700)
        // The check would find the key if it were there.
        try Data(try AnnexD.deviceKeyPEM().utf8).write(to: URL(fileURLWithPath: storeDirectory + "/probe"))
        #expect(try Self.filesHoldingTheKey(in: storeDirectory) == ["probe"])
    }

    /// A schema-2 store as release 2 wrote it, with one credential and its plaintext key,
    /// checkpointed so the key is in the main file too.
    static func writeSchema2Store(at path: String) throws {
        let old = try SQLiteDatabase(path: path)
        try old.execute(StoreFileTests.version1)
        try old.execute(
            """
            CREATE INDEX credentials_by_doc_type ON credentials (doc_type);
            CREATE INDEX history_by_time ON history (time);
            PRAGMA user_version = 2;
            """)
        _ = try old.run(
            """
            INSERT INTO credentials (id, doc_type, issuer_signed, device_key_pem, issuer_subject, valid_from,
                valid_until, imported_at, elements)
            VALUES ('00112233445566ff', ?, ?, ?, NULL, 1600000000, 1900000000, 1700000000, '[]')
            """, [.text(AnnexD.mDL), .blob(AnnexD.issuerSigned), .text(try AnnexD.deviceKeyPEM())])
        try old.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    }

    @Test func migrationMovesPlaintextKeysIntoTheSoftwareAreaAndLeavesNoTrace() throws {
        let dir = try TemporaryDirectory()
        let storeDirectory = dir.file("store")
        try FileManager.default.createDirectory(atPath: storeDirectory, withIntermediateDirectories: true)
        let path = storeDirectory + "/wallet.sqlite"
        try Self.writeSchema2Store(at: path)
        #expect(try Self.filesHoldingTheKey(in: storeDirectory) == ["wallet.sqlite"])

        let store = try CredentialStore(path: path, secureAreas: Self.areas(dir))
        let db = try SQLiteDatabase(path: path)
        #expect(try db.userVersion() == 4)
        let columns = try db.query("SELECT name FROM pragma_table_info('credentials')") { $0.text(0) ?? "" }
        #expect(!columns.contains("device_key_pem"))
        #expect(columns.contains("key_id"))
        #expect(try Self.filesHoldingTheKey(in: storeDirectory) == [])

        // The credential still presents: its key, now wrapped, signs for the MSO's key.
        let keys = try store.keys()
        #expect(keys.map(\.key.area) == [.software])
        #expect(keys.first?.credentials == ["00112233445566ff"])
        let credential = try store.credential(id: "00112233445566ff")
        let message = Array("after migration".utf8)
        let signature = try credential.deviceKey.signature(over: message, algorithm: .es256)
        let mso = try credential.issuerSigned.mobileSecurityObject().mso
        #expect(try mso.deviceKey.publicKey().isValidSignature(signature, for: message, algorithm: .es256))
    }

    @Test func anInterruptedMigrationLeavesTheOldStoreAsItWas() throws {
        let dir = try TemporaryDirectory()
        let path = dir.file("wallet.sqlite")
        try Self.writeSchema2Store(at: path)
        // The KEK is named but absent: wrapping fails half-way through the migration.
        let missing = SecureAreaRegistry(
            software: SoftwareSecureArea(source: .file(path: dir.file("absent-kek"))),
            tpm2: TPM2SecureArea(tcti: "swtpm:host=127.0.0.1,port=1"))
        #expect {
            _ = try CredentialStore(path: path, secureAreas: missing)
        } throws: { error in
            guard case .secureArea(.keyEncryptionKeyMissing(let location, _)) = error as? WalletError else {
                return false
            }
            return location == dir.file("absent-kek")
        }
        let db = try SQLiteDatabase(path: path)
        #expect(try db.userVersion() == 2)
        let pem = try db.query("SELECT device_key_pem FROM credentials") { $0.text(0) ?? "" }
        #expect(pem == [try AnnexD.deviceKeyPEM()])
        let tables = try db.query("SELECT name FROM sqlite_schema WHERE name = 'keys'") { $0.text(0) ?? "" }
        #expect(tables.isEmpty)
        // With its KEK it migrates.
        let store = try CredentialStore(path: path, secureAreas: Self.areas(dir))
        #expect(try store.keys().count == 1)
    }

    @Test func aStoreWithoutItsKEKListsButRefusesToPresent() throws {
        let dir = try TemporaryDirectory()
        let path = dir.file("store/wallet.sqlite")
        let id = try CredentialStore(path: path, secureAreas: Self.areas(dir)).import(
            fileBytes: AnnexD.issuerSigned, deviceKeyPEM: try AnnexD.deviceKeyPEM(), trustAnchors: [try AnnexD.iaca()],
            at: AnnexD.inValidity
        ).first!
        try FileManager.default.removeItem(atPath: dir.file("config/kek"))
        let store = try CredentialStore(path: path, secureAreas: Self.areas(dir))
        #expect(try store.list().map(\.id) == [id])
        #expect(try store.history().isEmpty)
        #expect(throws: WalletError.self) { try store.checkKeysUsable() }
        do {
            try store.checkKeysUsable()
        } catch {
            #expect("\(error)".contains(dir.file("config/kek")))
            #expect("\(error)".contains("--kek-file"))
        }
        // Using the key says the same, and no new KEK was made behind the user's back.
        #expect(throws: SecureAreaError.self) {
            _ = try store.credential(id: id).deviceKey.signature(over: [1], algorithm: .es256)
        }
        #expect(!FileManager.default.fileExists(atPath: dir.file("config/kek")))
    }

    @Test func keysAreMadeListedBoundAndDeleted() throws {
        let dir = try TemporaryDirectory()
        let store = try CredentialStore(path: dir.file("wallet.sqlite"), secureAreas: Self.areas(dir))
        let made = try store.createKey(KeySettings(curve: .p256))
        #expect(try store.keySummaries().map(\.id) == [made.id])
        #expect(try store.keySummaries().first?.hardwareBound == false)
        // A credential issued to another key is refused with --key.
        #expect(throws: WalletError.keyDoesNotMatch(keyID: made.id, document: 1, docType: AnnexD.mDL)) {
            try store.import(
                fileBytes: AnnexD.issuerSigned, keyID: made.id, trustAnchors: [try AnnexD.iaca()],
                at: AnnexD.inValidity)
        }
        // The Annex D key, imported once, is reused by a second credential import with --key.
        let first = try store.import(
            fileBytes: AnnexD.issuerSigned, deviceKeyPEM: try AnnexD.deviceKeyPEM(), trustAnchors: [try AnnexD.iaca()],
            at: AnnexD.inValidity)
        let annexKey = try #require(try store.keys().first { $0.credentials == first }?.key)
        let second = try store.import(
            fileBytes: try AnnexD.partialIssuerSigned(), keyID: annexKey.id, trustAnchors: [try AnnexD.iaca()],
            at: AnnexD.inValidity)
        #expect(try store.keys().first { $0.key.id == annexKey.id }?.credentials == first + second)
        #expect(throws: WalletError.keyInUse(id: annexKey.id, credentials: first + second)) {
            try store.deleteKey(id: annexKey.id)
        }
        try store.deleteKey(id: annexKey.id, withCredentials: true)
        #expect(try store.list().isEmpty)
        try store.deleteKey(id: made.id)
        #expect(try store.keys().isEmpty)
        #expect(throws: WalletError.unknownKey(id: made.id)) { try store.deleteKey(id: made.id) }
    }
}

import MdocCrypto
import SQLite
import SecureArea

/// Schema 3: the plaintext PKCS#8 PEM keys of older stores move into the software secure area
/// (wrapped under its key-encryption key), each credential points at its key row, and the
/// `device_key_pem` column is dropped. It runs inside the schema migration's transaction: an
/// interrupted migration leaves the old store as it was. The caller VACUUMs afterwards so the
/// plaintext does not linger in free pages.
enum KeyMigration {
    /// Moves the keys; returns how many credentials had a plaintext key. Credentials that share
    /// a key share one key row.
    static func run(_ db: SQLiteDatabase, into area: any SecureArea, path: String) throws -> Int {
        let rows = try db.query("SELECT id, device_key_pem FROM credentials ORDER BY rowid") {
            (id: $0.text(0) ?? "", pem: $0.text(1) ?? "")
        }
        var keyIDs: [[UInt8]: String] = [:]
        for row in rows {
            let key: PrivateKey
            do {
                key = try PrivateKey(pem: row.pem)
            } catch {
                throw WalletError.corruptCredential(id: row.id, reason: "its plaintext device key cannot be read")
            }
            let publicKey = key.publicKey.subjectPublicKeyInfoDER
            let keyID: String
            if let existing = keyIDs[publicKey] {
                keyID = existing
            } else {
                let stored: StoredKey
                do {
                    stored = try area.importKey(key, passphrase: nil)
                } catch {
                    throw WalletError.secureArea(error)
                }
                try KeyRows.insert(stored, into: db)
                keyIDs[publicKey] = stored.id
                keyID = stored.id
            }
            _ = try db.run("UPDATE credentials SET key_id = ? WHERE id = ?", [.text(keyID), .text(row.id)])
        }
        try db.execute("ALTER TABLE credentials DROP COLUMN device_key_pem")
        return rows.count
    }
}

extension KeyMigration {
    /// Brings the store to the current schema (moving plaintext keys into the software area at
    /// schema 3), then, when keys moved, VACUUMs and truncates the WAL so no page of the file
    /// or its WAL still holds them.
    static func openAndMigrate(_ db: SQLiteDatabase, path: String, secureAreas: SecureAreaRegistry)
        throws(WalletError)
    {
        do {
            try db.execute("PRAGMA secure_delete = ON")
        } catch {
            throw .database(path: path, error)
        }
        var moved = 0
        try Schema.migrate(db, path: path) { db, version in
            if version == 3 { moved = try run(db, into: secureAreas.software, path: path) }
        }
        guard moved > 0 else { return }
        do {
            try db.execute("VACUUM")
            try db.execute("PRAGMA wal_checkpoint(TRUNCATE)")
        } catch {
            throw .database(path: path, error)
        }
    }
}

import FoundationEssentials
import MdocCrypto
import SQLite
import SecureArea

/// What `keys list` shows of a device key: never key material.
public struct KeySummary: Sendable, Hashable, Codable {
    public var id: String
    public var secureArea: String
    public var curve: String
    public var hardwareBound: Bool
    public var requiresPassphrase: Bool
    public var createdAt: Date
    /// IDs of the credentials bound to this key.
    public var credentials: [String]
}

extension CredentialStore {
    /// A new key in `area` (the default area when nil), stored.
    public func createKey(_ settings: KeySettings = KeySettings(), in area: SecureAreaName? = nil)
        throws(WalletError) -> StoredKey
    {
        let key: StoredKey
        do {
            key = try secureAreas.area(area ?? secureAreas.defaultArea).createKey(settings)
        } catch {
            throw .secureArea(error)
        }
        try withDatabase { (db) throws(WalletError) in
            try sql { () throws(SQLiteError) in try KeyRows.insert(key, into: db) }
        }
        return key
    }

    /// Every stored key with the credentials bound to it, oldest first.
    public func keys() throws(WalletError) -> [(key: StoredKey, credentials: [String])] {
        try withDatabase { (db) throws(WalletError) in
            try sql { () throws(SQLiteError) in
                let keys = try db.query("SELECT \(KeyRows.columns) FROM keys ORDER BY created_at, rowid") {
                    KeyRows.read($0)
                }.compactMap { $0 }
                let uses = try db.query(
                    """
                    SELECT key_id, id FROM (SELECT key_id, id, imported_at, rowid AS r FROM credentials
                        UNION SELECT cc.key_id, cc.credential_id, c.imported_at, c.rowid FROM credential_copies cc
                        JOIN credentials c ON c.id = cc.credential_id
                        UNION ALL SELECT key_id, id, imported_at, rowid AS r FROM sd_jwt_credentials
                        UNION SELECT sc.key_id, sc.credential_id, s.imported_at, s.rowid FROM sd_jwt_copies sc
                        JOIN sd_jwt_credentials s ON s.id = sc.credential_id)
                    ORDER BY imported_at, r
                    """
                ) {
                    (key: $0.text(0) ?? "", credential: $0.text(1) ?? "")
                }
                return keys.map { key in (key, uses.filter { $0.key == key.id }.map(\.credential)) }
            }
        }
    }

    /// The summaries `keys list` prints.
    public func keySummaries() throws(WalletError) -> [KeySummary] {
        try keys().map {
            KeySummary(
                id: $0.key.id, secureArea: $0.key.area.rawValue, curve: $0.key.curve.rawValue,
                hardwareBound: $0.key.area.isHardwareBound, requiresPassphrase: $0.key.requiresPassphrase,
                createdAt: $0.key.createdAt, credentials: $0.credentials)
        }
    }

    /// The stored key `id`.
    public func storedKey(id: String) throws(WalletError) -> StoredKey {
        guard let key = try keys().first(where: { $0.key.id == id })?.key else { throw .unknownKey(id: id) }
        return key
    }

    /// A handle on key `id` in its area, to sign or agree with.
    public func deviceKey(id: String) throws(WalletError) -> SecureAreaKey {
        let key = try storedKey(id: id)
        do {
            return try secureAreas.deviceKey(key)
        } catch {
            throw .secureArea(error)
        }
    }

    /// Deletes key `id` from its area and the store. Refused while credentials use it, unless
    /// `withCredentials` (they are deleted with it, in one transaction; their history stays).
    public func deleteKey(id: String, withCredentials: Bool = false) throws(WalletError) {
        guard let entry = try keys().first(where: { $0.key.id == id }) else { throw .unknownKey(id: id) }
        if !entry.credentials.isEmpty, !withCredentials {
            throw .keyInUse(id: id, credentials: entry.credentials)
        }
        do {
            try secureAreas.area(entry.key.area).deleteKey(entry.key)
        } catch {
            throw .secureArea(error)
        }
        try withDatabase { (db) throws(WalletError) in
            try transaction(db) {
                _ = try db.run(
                    """
                    DELETE FROM credential_copies WHERE credential_id IN
                        (SELECT id FROM credentials WHERE key_id = ? UNION SELECT credential_id FROM credential_copies WHERE key_id = ?)
                    """, [.text(id), .text(id)])
                _ = try db.run("DELETE FROM credentials WHERE key_id = ?", [.text(id)])
                // An SD-JWT VC goes with every copy when one of its copies uses the key.
                let sdJWTs = try db.query(
                    "SELECT id FROM sd_jwt_credentials WHERE key_id = ?1 UNION SELECT credential_id FROM sd_jwt_copies WHERE key_id = ?1",
                    [.text(id)]
                ) { $0.text(0) ?? "" }
                for credential in sdJWTs {
                    _ = try db.run("DELETE FROM sd_jwt_copies WHERE credential_id = ?", [.text(credential)])
                    _ = try db.run("DELETE FROM sd_jwt_credentials WHERE id = ?", [.text(credential)])
                }
                _ = try db.run("DELETE FROM keys WHERE id = ?", [.text(id)])
            }
        }
    }

    /// Whether every stored key's area can be used now (the software area's key-encryption key
    /// present, ...): presentation checks this first, so a store without its KEK refuses to
    /// present with an error that says which key is missing and how to provide it.
    public func checkKeysUsable() throws(WalletError) {
        let areas = Set(try keys().map(\.key.area))
        if areas.contains(.software), !secureAreas.software.isKeyEncryptionKeyAvailable {
            do {
                _ = try secureAreas.software.source.load(create: false, passphrase: secureAreas.software.kekPassphrase)
            } catch {
                throw .secureArea(error)
            }
        }
        if areas.contains(.pkcs11) {
            do {
                _ = try secureAreas.area(.pkcs11)
            } catch {
                throw .secureArea(error)
            }
        }
    }
}

import FoundationEssentials
import SDJWT
import SQLite
import SecureArea

/// The copies of an SD-JWT VC received in a batch (`sd_jwt_copies`): one credential, one key
/// per copy, each copy presented once while an unused one is left, as mdoc copies are.
extension CredentialStore {
    /// The copy a presentation of the SD-JWT VC `credential` (an SQL expression) uses, as a
    /// subquery: the first not yet presented, else the one presented longest ago. NULL for a
    /// credential without copies.
    static func preferredSDJWTCopy(of credential: String) -> String {
        """
        (SELECT pc.copy FROM sd_jwt_copies pc WHERE pc.credential_id = \(credential)
            ORDER BY pc.presented_at IS NOT NULL, pc.presented_at, pc.copy LIMIT 1)
        """
    }

    /// The SD-JWT VC row of a received batch and its copies (inside the caller's transaction):
    /// the row keeps copy 0 and what a `credential_deleted` notification to `source` needs.
    /// Refuses a copy stored already (as a credential or a copy). Returns the credential's ID.
    static func insertSDJWTBatch(
        _ copies: [(credential: SDJWTVC, key: StoredKey)], from source: IssuanceSource, into db: SQLiteDatabase
    ) throws -> String {
        for (n, copy) in copies.enumerated() {
            if let id = try storedSDJWT(copy.credential.compact, in: db) {
                throw WalletError.alreadyStored(document: n + 1, id: id)
            }
        }
        let id = try insertSDJWT(copies[0].credential, keyID: copies[0].key.id, document: 1, into: db)
        let notificationID = source.notificationID
        try db.run(
            """
            UPDATE sd_jwt_credentials SET received_from = ?, notification_id = ?, notification_endpoint = ?,
                notification_token = ? WHERE id = ?
            """,
            [
                .text(source.issuer), .text(notificationID), .text(source.notificationEndpoint),
                .text(notificationID == nil ? nil : source.notificationToken), .text(id),
            ])
        for (n, copy) in copies.enumerated() {
            try db.run(
                "INSERT INTO sd_jwt_copies (credential_id, copy, compact, key_id) VALUES (?, ?, ?, ?)",
                [.text(id), .integer(Int64(n)), .text(copy.credential.compact), .text(copy.key.id)])
        }
        return id
    }

    /// The ID of the SD-JWT VC that holds `compact`, as its own or as one of its copies.
    static func storedSDJWT(_ compact: String, in db: SQLiteDatabase) throws(SQLiteError) -> String? {
        try db.query(
            """
            SELECT id FROM sd_jwt_credentials WHERE compact = ?1
            UNION ALL SELECT credential_id FROM sd_jwt_copies WHERE compact = ?1 LIMIT 1
            """, [.text(compact)]
        ) { $0.text(0) ?? "" }.first
    }

    /// Marks the copy of SD-JWT VC `id` that ``preferredSDJWTCopy(of:)`` picks as presented at
    /// `time` (under the lock already held by the caller); nothing for one without copies.
    func markSDJWTCopyPresented(_ db: SQLiteDatabase, credentialID id: String, at time: Date) throws(SQLiteError) {
        _ = try db.run(
            """
            UPDATE sd_jwt_copies SET presented_at = ?1 WHERE credential_id = ?2 AND copy =
                \(Self.preferredSDJWTCopy(of: "?2"))
            """, [.real(time.timeIntervalSince1970), .text(id)])
    }
}

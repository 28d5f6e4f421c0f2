import FoundationEssentials
import SQLite
import SecureArea

/// A deferred issuance (OpenID4VCI `transaction_id`) not finished yet: what resuming it needs.
/// Its keys are stored (without credentials) until it ends.
///
/// `description` shows neither the token nor the transaction ID.
public struct PendingIssuance: Sendable, CustomStringConvertible {
    public var id: String
    public var issuer: String
    public var issuerName: String
    public var docType: String
    /// A secret of the issuance.
    public var transactionID: String
    /// The deferred credential endpoint.
    public var endpoint: String
    public var notificationEndpoint: String?
    /// A secret: the access token.
    public var accessToken: String
    /// "Bearer" or "DPoP".
    public var tokenType: String
    /// The DPoP key of the issuance (wrapped in the software area), for a DPoP-bound token.
    public var dpopKeyID: String?
    /// The response-encryption key of the credential request (wrapped in the software area):
    /// the issuer may encrypt the deferred answer to it.
    public var responseKeyID: String?
    /// The keys proved, in order.
    public var keyIDs: [String]
    /// Seconds between polls (the issuer's `interval`).
    public var interval: Double
    public var createdAt: Date

    public init(
        id: String, issuer: String, issuerName: String, docType: String, transactionID: String, endpoint: String,
        notificationEndpoint: String?, accessToken: String, tokenType: String, dpopKeyID: String?,
        keyIDs: [String], interval: Double, createdAt: Date = Date(), responseKeyID: String? = nil
    ) {
        self.id = id
        self.issuer = issuer
        self.issuerName = issuerName
        self.docType = docType
        self.transactionID = transactionID
        self.endpoint = endpoint
        self.notificationEndpoint = notificationEndpoint
        self.accessToken = accessToken
        self.tokenType = tokenType
        self.dpopKeyID = dpopKeyID
        self.responseKeyID = responseKeyID
        self.keyIDs = keyIDs
        self.interval = interval
        self.createdAt = createdAt
    }

    public var description: String { "PendingIssuance(\(id), \(docType) from \(issuer))" }
}

extension CredentialStore {
    /// Keeps a deferred issuance with its keys (and DPoP and response-encryption keys), in one
    /// transaction. Returns its ID.
    public func savePending(
        _ pending: PendingIssuance, keys: [StoredKey], dpopKey: StoredKey?, responseKey: StoredKey? = nil
    ) throws(WalletError) -> String {
        try withDatabase { (db) throws(WalletError) in
            try transaction(db) {
                for key in keys { try KeyRows.insert(key, into: db) }
                if let dpopKey { try KeyRows.insert(dpopKey, into: db) }
                if let responseKey { try KeyRows.insert(responseKey, into: db) }
                var id = pending.id
                while try !db.query("SELECT 1 FROM pending_issuances WHERE id = ?", [.text(id)], { _ in true }).isEmpty
                {
                    id = StoredKey.newID()
                }
                try db.run(
                    """
                    INSERT INTO pending_issuances (id, issuer, issuer_name, doc_type, transaction_id, endpoint,
                        notification_endpoint, access_token, token_type, dpop_key_id, key_ids, interval, created_at,
                        response_key_id)
                    VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
                    """,
                    [
                        .text(id), .text(pending.issuer), .text(pending.issuerName), .text(pending.docType),
                        .text(pending.transactionID), .text(pending.endpoint), .text(pending.notificationEndpoint),
                        .text(pending.accessToken), .text(pending.tokenType), .text(dpopKey?.id),
                        .text(JSONList.encode(keys.map(\.id))), .real(pending.interval),
                        .real(pending.createdAt.timeIntervalSince1970), .text(responseKey?.id),
                    ])
                return id
            }
        }
    }

    /// Every pending issuance, oldest first.
    public func pendingIssuances() throws(WalletError) -> [PendingIssuance] {
        try withDatabase { (db) throws(WalletError) in
            try sql { () throws(SQLiteError) in
                try db.query(
                    """
                    SELECT id, issuer, issuer_name, doc_type, transaction_id, endpoint, notification_endpoint,
                        access_token, token_type, dpop_key_id, key_ids, interval, created_at, response_key_id
                    FROM pending_issuances ORDER BY created_at, rowid
                    """
                ) { s in
                    PendingIssuance(
                        id: s.text(0) ?? "", issuer: s.text(1) ?? "", issuerName: s.text(2) ?? "",
                        docType: s.text(3) ?? "", transactionID: s.text(4) ?? "", endpoint: s.text(5) ?? "",
                        notificationEndpoint: s.text(6), accessToken: s.text(7) ?? "", tokenType: s.text(8) ?? "",
                        dpopKeyID: s.text(9),
                        keyIDs: (try? JSONDecoder().decode([String].self, from: Data((s.text(10) ?? "[]").utf8))) ?? [],
                        interval: s.double(11), createdAt: Date(timeIntervalSince1970: s.double(12)),
                        responseKeyID: s.text(13))
                }
            }
        }
    }

    /// Ends a pending issuance: its row and DPoP and response key rows go; its keys' rows too unless
    /// `keepKeys` (the credential that was received now uses them). Returns the key rows
    /// removed, for their secure area to delete.
    @discardableResult
    public func removePending(id: String, keepKeys: Bool) throws(WalletError) -> [StoredKey] {
        guard let pending = try pendingIssuances().first(where: { $0.id == id }) else {
            throw .unknownCredential(id: id)
        }
        let removable = (keepKeys ? [] : pending.keyIDs) + [pending.dpopKeyID, pending.responseKeyID].compactMap { $0 }
        let keys = try self.keys().map(\.key).filter { removable.contains($0.id) }
        try withDatabase { (db) throws(WalletError) in
            try transaction(db) {
                _ = try db.run("DELETE FROM pending_issuances WHERE id = ?", [.text(id)])
                for key in removable { _ = try db.run("DELETE FROM keys WHERE id = ?", [.text(key)]) }
            }
        }
        return keys
    }

    /// The DPoP and response-encryption key rows of pending issuance `id` (inside the caller's
    /// transaction): they go with it.
    static func issuanceKeyIDs(ofPending id: String, in db: SQLiteDatabase) throws -> [String] {
        try db.query("SELECT dpop_key_id, response_key_id FROM pending_issuances WHERE id = ?", [.text(id)]) {
            [$0.text(0), $0.text(1)].compactMap { $0 }
        }.flatMap { $0 }
    }
}

import Consent
import Foundation
import MdocCrypto
import SQLite
import SecureArea

/// One copy of a credential an issuer sent, with the key it was asked for (made in a secure
/// area for this issuance, not stored yet).
public struct ReceivedCopy: Sendable {
    /// The IssuerSigned CBOR as received.
    public var issuerSignedBytes: [UInt8]
    public var key: StoredKey

    public init(issuerSignedBytes: [UInt8], key: StoredKey) {
        self.issuerSignedBytes = issuerSignedBytes
        self.key = key
    }
}

/// Where a received credential came from: what the store keeps beside it.
///
/// `description` names the issuer only, never the token.
public struct IssuanceSource: Sendable, Hashable, CustomStringConvertible {
    /// The Credential Issuer Identifier.
    public var issuer: String
    /// The issuer's display name (metadata), or its host.
    public var issuerName: String
    /// `notification_id` and the notification endpoint, when the issuer wants notifications.
    public var notificationID: String?
    public var notificationEndpoint: String?
    /// The access token a later `credential_deleted` notification is sent with: kept only for
    /// a Bearer token (a DPoP-bound token needs the issuance's ephemeral key, which is gone).
    /// A secret: stored in the 0600 store, deleted with the credential, never shown.
    public var notificationToken: String?
    public var description: String { "IssuanceSource(\(issuer))" }

    /// How the issuer was authenticated, for the history (its TLS host).
    public var authentication: String {
        IssuanceSource.host(issuer).map { "TLS certificate of \($0)" } ?? "TLS"
    }

    private static func host(_ url: String) -> String? {
        guard let components = URLComponents(string: url), let host = components.host else { return nil }
        return components.port.map { "\(host):\($0)" } ?? host
    }

    public init(
        issuer: String, issuerName: String, notificationID: String? = nil, notificationEndpoint: String? = nil,
        notificationToken: String? = nil
    ) {
        self.issuer = issuer
        self.issuerName = issuerName
        self.notificationID = notificationID
        self.notificationEndpoint = notificationEndpoint
        self.notificationToken = notificationToken
    }
}

/// The notification a deleted credential owes its issuer (OpenID4VCI `credential_deleted`).
///
/// `description` never shows the token.
public struct PendingNotification: Sendable, Hashable, CustomStringConvertible {
    public var notificationID: String
    public var endpoint: String
    public var issuer: String
    /// The Bearer access token of the issuance (a secret).
    public var token: String

    public var description: String { "PendingNotification(\(issuer))" }
}

extension CredentialStore {
    /// Checks every copy an issuer sent and stores them as one credential, with their keys, in
    /// one transaction: every copy is stored or none.
    ///
    /// Each copy goes through the checks of a file import
    /// (``import(fileBytes:keyID:trustAnchors:verifyIssuer:at:)``): well-formed, its MSO's
    /// docType is `docType`, valid at `time`, issuer data authentication against
    /// `trustAnchors`, and the MSO's deviceKey is the public key of the key it was asked for.
    /// The history gets one `received` entry (issuer, doc type, elements, copies; no values).
    ///
    /// - Returns: the new credential's ID.
    ///
    /// - Parameter pendingID: a pending deferred issuance this ends: its keys are stored
    ///   already, and its row goes in the same transaction.
    public func receive(
        _ copies: [ReceivedCopy], docType: String, from source: IssuanceSource, trustAnchors: [Certificate],
        at time: Date = Date(), completingPending pendingID: String? = nil
    ) throws(WalletError) -> String {
        guard !copies.isEmpty else { throw .nothingToImport(reason: "the issuer sent no credential") }
        var checked: [Checked] = []
        for (offset, copy) in copies.enumerated() {
            let publicKey: PublicKey
            do {
                publicKey = try copy.key.publicKey()
            } catch {
                throw .secureArea(error)
            }
            let entry = CredentialFile.Entry(
                index: offset + 1, docType: docType, issuerSignedBytes: copy.issuerSignedBytes)
            let document = try Self.check(
                entry, publicKey: publicKey, trustAnchors: trustAnchors, verifyIssuer: true, at: time
            ) { n, docType in .keyDoesNotMatch(keyID: copy.key.id, document: n, docType: docType) }
            if let first = checked.first(where: { $0.issuerSignedBytes == document.issuerSignedBytes }) {
                throw .duplicateDocument(document: entry.index, sameAs: first.index)
            }
            checked.append(document)
        }
        let first = checked[0]
        let importedAt = Date()
        let id = try withDatabase { (db) throws(WalletError) in
            try transaction(db) {
                if let pendingID {
                    try Self.completePending(pendingID, keyIDs: copies.map(\.key.id), in: db)
                } else {
                    for copy in copies { try KeyRows.insert(copy.key, into: db) }
                }
                for document in checked {
                    let existing = try db.query(
                        "SELECT id FROM credentials WHERE issuer_signed = ? LIMIT 1",
                        [.blob(document.issuerSignedBytes)]
                    ) { $0.text(0) ?? "" }
                    if let id = existing.first { throw WalletError.alreadyStored(document: document.index, id: id) }
                }
                let id = try Self.newID(db, avoiding: [])
                try db.run(
                    """
                    INSERT INTO credentials (id, doc_type, issuer_signed, key_id, issuer_subject, valid_from,
                        valid_until, imported_at, elements, issuer, notification_id, notification_endpoint,
                        notification_token)
                    VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
                    """,
                    [
                        .text(id), .text(first.docType), .blob(first.issuerSignedBytes), .text(copies[0].key.id),
                        .text(first.issuerSubject), .real(first.validFrom.timeIntervalSince1970),
                        .real(first.validUntil.timeIntervalSince1970), .real(importedAt.timeIntervalSince1970),
                        .text(JSONList.encode(first.elements)), .text(source.issuer), .text(source.notificationID),
                        .text(source.notificationEndpoint),
                        .text(source.notificationID == nil ? nil : source.notificationToken),
                    ])
                for (n, document) in checked.enumerated() {
                    try db.run(
                        "INSERT INTO credential_copies (credential_id, copy, issuer_signed, key_id) VALUES (?, ?, ?, ?)",
                        [.text(id), .integer(Int64(n)), .blob(document.issuerSignedBytes), .text(copies[n].key.id)])
                }
                return id
            }
        }
        do {
            try record(
                HistoryEntry(
                    time: time, channel: .issuance, requesterName: source.issuerName,
                    requesterIdentifier: source.issuer, authentication: source.authentication, docType: first.docType,
                    elementsSent: first.elements, decision: .received, copies: copies.count))
        } catch {
            // The credential is stored; a history write failure must not undo it.
        }
        return id
    }

    /// Ends the pending issuance `pendingID` (inside the caller's transaction): its keys must
    /// be `keyIDs` (they are stored already); its row and its DPoP key row go.
    static func completePending(_ pendingID: String, keyIDs: [String], in db: SQLiteDatabase) throws {
        let listed = try db.query("SELECT key_ids FROM pending_issuances WHERE id = ?", [.text(pendingID)]) {
            $0.text(0) ?? "[]"
        }
        guard let text = listed.first, let ids = try? JSONDecoder().decode([String].self, from: Data(text.utf8)),
            Set(ids) == Set(keyIDs)
        else { throw WalletError.unknownCredential(id: pendingID) }
        let dpop = try db.query("SELECT dpop_key_id FROM pending_issuances WHERE id = ?", [.text(pendingID)]) {
            $0.text(0)
        }
        _ = try db.run("DELETE FROM pending_issuances WHERE id = ?", [.text(pendingID)])
        if let dpopKey = dpop.first ?? nil {
            _ = try db.run("DELETE FROM keys WHERE id = ?", [.text(dpopKey)])
        }
    }

    /// Records an issuance that did not end with a stored credential (declined, refused).
    public func recordIssuance(
        from source: IssuanceSource, docType: String, decision: HistoryDecision, at time: Date = Date()
    ) throws(WalletError) {
        try record(
            HistoryEntry(
                time: time, channel: .issuance, requesterName: source.issuerName, requesterIdentifier: source.issuer,
                authentication: source.authentication, docType: docType, elementsSent: [], decision: decision))
    }

    /// The notification owed to the issuer of credential `id` when it is deleted, if any.
    public func pendingNotification(forDeleting id: String) throws(WalletError) -> PendingNotification? {
        try withDatabase { (db) throws(WalletError) in
            try sql { () throws(SQLiteError) in
                try db.query(
                    """
                    SELECT notification_id, notification_endpoint, issuer, notification_token FROM credentials
                    WHERE id = ?
                    """, [.text(id)]
                ) { s -> PendingNotification? in
                    guard let nid = s.text(0), let endpoint = s.text(1), let token = s.text(3) else { return nil }
                    return PendingNotification(
                        notificationID: nid, endpoint: endpoint, issuer: s.text(2) ?? "", token: token)
                }.first ?? nil
            }
        }
    }

    /// Copies of each credential: total and not yet presented, by credential ID (credentials
    /// without copies are absent).
    func copyCounts(_ db: SQLiteDatabase) throws(SQLiteError) -> [String: (total: Int, unused: Int)] {
        var counts: [String: (total: Int, unused: Int)] = [:]
        let rows = try db.query(
            "SELECT credential_id, count(*), sum(presented_at IS NULL) FROM credential_copies GROUP BY credential_id"
        ) { (id: $0.text(0) ?? "", total: Int($0.int64(1)), unused: Int($0.int64(2))) }
        for row in rows {
            counts[row.id] = (row.total, row.unused)
        }
        return counts
    }

    /// The copy a presentation of credential `id` uses: the first not yet presented, else the
    /// one presented longest ago. Nil for a credential without copies.
    func preferredCopy(_ db: SQLiteDatabase, credentialID id: String) throws(SQLiteError) -> (
        copy: Int, issuerSigned: [UInt8], key: StoredKey?
    )? {
        try db.query(
            """
            SELECT cc.copy, cc.issuer_signed, \(KeyRows.columns.split(separator: ",").map { "k." + $0.trimmingCharacters(in: .whitespaces) }.joined(separator: ", "))
            FROM credential_copies cc LEFT JOIN keys k ON k.id = cc.key_id
            WHERE cc.credential_id = ?
            ORDER BY cc.presented_at IS NOT NULL, cc.presented_at, cc.copy LIMIT 1
            """, [.text(id)]
        ) { s in (Int(s.int64(0)), s.blob(1) ?? [], KeyRows.read(s, at: 2)) }.first
    }

    /// Marks the copy of credential `id` that ``preferredCopy(_:credentialID:)`` picks as
    /// presented at `time` (a copy already presented keeps its first time but moves to the
    /// back by being re-stamped only when every copy was used).
    func markPresented(credentialID id: String, at time: Date) throws(WalletError) {
        try withDatabase { (db) throws(WalletError) in
            try sql { () throws(SQLiteError) in
                guard let copy = try preferredCopy(db, credentialID: id) else { return }
                _ = try db.run(
                    "UPDATE credential_copies SET presented_at = ? WHERE credential_id = ? AND copy = ?",
                    [.real(time.timeIntervalSince1970), .text(id), .integer(Int64(copy.copy))])
            }
        }
    }
}

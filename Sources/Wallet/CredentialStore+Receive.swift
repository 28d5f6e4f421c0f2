import Consent
import FoundationEssentials
import ISO18013
import MdocCrypto
import SQLite
import SecureArea

/// What an issuer sent for one credential configuration, one credential per key.
public enum IssuedCredentials: Sendable {
    /// IssuerSigned CBOR (mso_mdoc).
    case mdoc([[UInt8]])
    /// Compact SD-JWT VCs (dc+sd-jwt).
    case sdJWT([String])
}

extension CredentialStore {
    /// Stores what an issuer sent for one credential configuration, bound to `keys` (made in a
    /// secure area for this issuance): every copy is checked as a file import is, and stored
    /// with its key, or none is. `docType` is the offered doc type (an SD-JWT VC's `vct`).
    ///
    /// Each credential is parsed once: the key it is bound to is the one its MSO's deviceKey
    /// (an SD-JWT VC's `cnf.jwk`) names; one that names none of `keys` is refused.
    ///
    /// - Returns: the new credential's ID, one for all its copies (mdoc and SD-JWT VC alike).
    public func receive(
        _ credentials: IssuedCredentials, keys: [StoredKey], docType: String, from source: IssuanceSource,
        trustAnchors: [Certificate], at time: Date = Date(), completingPending pendingID: String? = nil,
        scopedAnchors: [IssuerTrust.ScopedAnchor] = []
    ) throws(WalletError) -> [String] {
        switch credentials {
        case .sdJWT(let compacts):
            return try receiveSDJWT(
                compacts, keys: keys, vct: docType, from: source, trustAnchors: trustAnchors, at: time,
                completingPending: pendingID)
        case .mdoc(let issuerSigned):
            guard issuerSigned.count == keys.count else {
                throw .malformedDocument(
                    document: 1, reason: "the issuer sent \(issuerSigned.count) credentials for \(keys.count) keys")
            }
            var remaining: [(key: StoredKey, publicKey: PublicKey)] = []
            for key in keys { remaining.append((key, try Self.publicKey(of: key))) }
            let trust = IssuerTrust(anchors: trustAnchors, scopedAnchors: scopedAnchors)
            let checked = try Self.checkCopies(issuerSigned, docType: docType, trustAnchors: trust, at: time) {
                document in
                // A credential whose MSO names none of our keys keeps its position's key (the
                // check then refuses it).
                remaining.remove(at: remaining.firstIndex { $0.publicKey == document.deviceKey } ?? 0)
            }
            return [try storeReceived(checked, docType: docType, from: source, at: time, completingPending: pendingID)]
        }
    }

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
        at time: Date = Date(), completingPending pendingID: String? = nil,
        scopedAnchors: [IssuerTrust.ScopedAnchor] = []
    ) throws(WalletError) -> String {
        var keys = copies.map(\.key)[...]
        let checked = try Self.checkCopies(
            copies.map(\.issuerSignedBytes), docType: docType,
            trustAnchors: IssuerTrust(anchors: trustAnchors, scopedAnchors: scopedAnchors), at: time
        ) { _ throws(WalletError) in
            let key = keys.removeFirst()
            return (key, try Self.publicKey(of: key))
        }
        return try storeReceived(checked, docType: docType, from: source, at: time, completingPending: pendingID)
    }

    private static func publicKey(of key: StoredKey) throws(WalletError) -> PublicKey {
        do {
            return try key.publicKey()
        } catch {
            throw .secureArea(error)
        }
    }

    /// Parses and checks each copy in order, with the key `keyFor` gives it.
    private static func checkCopies(
        _ issuerSigned: [[UInt8]], docType: String, trustAnchors: IssuerTrust, at time: Date,
        keyFor: (ParsedDocument) throws(WalletError) -> (key: StoredKey, publicKey: PublicKey)
    ) throws(WalletError) -> [(document: Checked, key: StoredKey)] {
        guard !issuerSigned.isEmpty else { throw .nothingToImport(reason: "the issuer sent no credential") }
        var checked: [(document: Checked, key: StoredKey)] = []
        for (offset, bytes) in issuerSigned.enumerated() {
            let parsed = try parse(CredentialFile.Entry(index: offset + 1, docType: docType, issuerSignedBytes: bytes))
            let key = try keyFor(parsed)
            let document = try check(
                parsed, publicKey: key.publicKey, trustAnchors: trustAnchors, verifyIssuer: true, at: time
            ) { n, docType in .keyDoesNotMatch(keyID: key.key.id, document: n, docType: docType) }
            if let first = checked.first(where: { $0.document.issuerSignedBytes == bytes }) {
                throw .duplicateDocument(document: offset + 1, sameAs: first.document.index)
            }
            checked.append((document, key.key))
        }
        return checked
    }

    /// Stores checked copies as one credential with their keys, in one transaction; records
    /// the history's `received` entry.
    private func storeReceived(
        _ checked: [(document: Checked, key: StoredKey)], docType: String, from source: IssuanceSource, at time: Date,
        completingPending pendingID: String?
    ) throws(WalletError) -> String {
        let first = checked[0].document
        let importedAt = Date()
        let id = try withDatabase { (db) throws(WalletError) in
            try transaction(db) {
                if let pendingID {
                    try Self.completePending(pendingID, keyIDs: checked.map(\.key.id), in: db)
                } else {
                    for copy in checked { try KeyRows.insert(copy.key, into: db) }
                }
                try Self.refuseStored(checked.map(\.document), in: db)
                let id = try Self.newID(db, avoiding: [])
                try Self.insertCredential(
                    first, id: id, keyID: checked[0].key.id, importedAt: importedAt, source: source, in: db)
                for (n, copy) in checked.enumerated() {
                    try db.run(
                        "INSERT INTO credential_copies (credential_id, copy, issuer_signed, key_id) VALUES (?, ?, ?, ?)",
                        [.text(id), .integer(Int64(n)), .blob(copy.document.issuerSignedBytes), .text(copy.key.id)])
                }
                return id
            }
        }
        do {
            try record(
                HistoryEntry(
                    time: time, channel: .issuance, requesterName: source.issuerName,
                    requesterIdentifier: source.issuer, authentication: source.authentication, docType: first.docType,
                    elementsSent: first.elements, decision: .received, copies: checked.count))
        } catch {
            // The credential is stored; a history write failure must not undo it.
        }
        return id
    }

    /// Ends the pending issuance `pendingID` (inside the caller's transaction): its keys must
    /// be `keyIDs` (they are stored already); its row and its DPoP and response key rows go.
    static func completePending(_ pendingID: String, keyIDs: [String], in db: SQLiteDatabase) throws {
        let listed = try db.query("SELECT key_ids FROM pending_issuances WHERE id = ?", [.text(pendingID)]) {
            $0.text(0) ?? "[]"
        }
        guard let text = listed.first, let ids = try? JSONDecoder().decode([String].self, from: Data(text.utf8)),
            Set(ids) == Set(keyIDs)
        else { throw WalletError.unknownCredential(id: pendingID) }
        let issuanceKeys = try issuanceKeyIDs(ofPending: pendingID, in: db)
        _ = try db.run("DELETE FROM pending_issuances WHERE id = ?", [.text(pendingID)])
        for key in issuanceKeys { _ = try db.run("DELETE FROM keys WHERE id = ?", [.text(key)]) }
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
                    WHERE id = ?1
                    UNION ALL SELECT notification_id, notification_endpoint, received_from, notification_token
                    FROM sd_jwt_credentials WHERE id = ?1
                    """, [.text(id)]
                ) { s -> PendingNotification? in
                    guard let nid = s.text(0), let endpoint = s.text(1), let token = s.text(3) else { return nil }
                    return PendingNotification(
                        notificationID: nid, endpoint: endpoint, issuer: s.text(2) ?? "", token: token)
                }.first ?? nil
            }
        }
    }

    /// Copies of each credential, mdoc or SD-JWT VC: total and not yet presented, by credential
    /// ID (credentials without copies are absent).
    func copyCounts(_ db: SQLiteDatabase) throws(SQLiteError) -> [String: (total: Int, unused: Int)] {
        var counts: [String: (total: Int, unused: Int)] = [:]
        let rows = try db.query(
            """
            SELECT credential_id, count(*), sum(presented_at IS NULL) FROM credential_copies GROUP BY credential_id
            UNION ALL SELECT credential_id, count(*), sum(presented_at IS NULL) FROM sd_jwt_copies
            GROUP BY credential_id
            """
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
            SELECT cc.copy, cc.issuer_signed, \(KeyRows.joinedColumns)
            FROM credential_copies cc LEFT JOIN keys k ON k.id = cc.key_id
            WHERE cc.credential_id = ?
            ORDER BY cc.presented_at IS NOT NULL, cc.presented_at, cc.copy LIMIT 1
            """, [.text(id)]
        ) { s in (Int(s.int64(0)), s.blob(1) ?? [], KeyRows.read(s, at: 2)) }.first
    }

    /// Marks the copy of credential `id` that ``preferredCopy(_:credentialID:)`` (an SD-JWT
    /// VC's: ``preferredSDJWTCopy(of:)``) picks as presented at `time`: the next presentation
    /// takes another copy while one is unused, then the one presented longest ago.
    func markPresented(credentialID id: String, at time: Date) throws(WalletError) {
        try withDatabase { (db) throws(WalletError) in
            try sql { () throws(SQLiteError) in
                guard let copy = try preferredCopy(db, credentialID: id) else {
                    return try markSDJWTCopyPresented(db, credentialID: id, at: time)
                }
                _ = try db.run(
                    "UPDATE credential_copies SET presented_at = ? WHERE credential_id = ? AND copy = ?",
                    [.real(time.timeIntervalSince1970), .text(id), .integer(Int64(copy.copy))])
            }
        }
    }
}

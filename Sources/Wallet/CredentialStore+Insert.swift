import FoundationEssentials
import MdocCrypto
import SQLite

/// The rows of a checked mdoc, shared by `credentials import` and OpenID4VCI receiving.
extension CredentialStore {
    /// Refuses documents the store holds already (the same IssuerSigned bytes).
    static func refuseStored(_ checked: [Checked], in db: SQLiteDatabase) throws {
        for document in checked {
            let existing = try db.query(
                "SELECT id FROM credentials WHERE issuer_signed = ? LIMIT 1", [.blob(document.issuerSignedBytes)]
            ) { $0.text(0) ?? "" }
            if let id = existing.first { throw WalletError.alreadyStored(document: document.index, id: id) }
        }
    }

    /// The credential row of a checked document, imported from a file or received from
    /// `source` (then with what a later `credential_deleted` notification needs).
    static func insertCredential(
        _ document: Checked, id: String, keyID: String, importedAt: Date, source: IssuanceSource? = nil,
        in db: SQLiteDatabase
    ) throws {
        let notificationID = source?.notificationID
        try db.run(
            """
            INSERT INTO credentials (id, doc_type, issuer_signed, key_id, issuer_subject, valid_from,
                valid_until, imported_at, elements, issuer, notification_id, notification_endpoint,
                notification_token)
            VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
            """,
            [
                .text(id), .text(document.docType), .blob(document.issuerSignedBytes), .text(keyID),
                .text(document.issuerSubject), .real(document.validFrom.timeIntervalSince1970),
                .real(document.validUntil.timeIntervalSince1970), .real(importedAt.timeIntervalSince1970),
                .text(JSONList.encode(document.elements)), .text(source?.issuer), .text(notificationID),
                .text(source?.notificationEndpoint), .text(notificationID == nil ? nil : source?.notificationToken),
            ])
    }

    /// A fresh random ID: 16 hex digits (64 bits), not in the store (mdocs and SD-JWT VCs) nor
    /// in `avoiding`.
    static func newID(_ db: SQLiteDatabase, avoiding: [String]) throws(SQLiteError) -> String {
        while true {
            let id = SecureRandom.bytes(8).map { byte in
                let digits = Array("0123456789abcdef")
                return String([digits[Int(byte >> 4)], digits[Int(byte & 0xF)]])
            }.joined()
            if avoiding.contains(id) { continue }
            let taken = try db.query(
                "SELECT 1 FROM credentials WHERE id = ?1 UNION ALL SELECT 1 FROM sd_jwt_credentials WHERE id = ?1",
                [.text(id)]
            ) { _ in true }
            if taken.isEmpty { return id }
        }
    }
}

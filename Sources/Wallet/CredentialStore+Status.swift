import CBOR
import FoundationEssentials
import ISO18013
import JOSE
import SDJWT
import SQLite
import TokenStatusList

/// A stored credential whose status the holder can check: where its issuer publishes the
/// status (a Token Status List `uri` and the credential's `index` in it), and what the last
/// check said.
public struct StatusCheckTarget: Sendable {
    public let id: String
    /// `mso_mdoc` or `dc+sd-jwt`.
    public let format: String
    /// The mdoc's docType, or the SD-JWT VC's `vct`.
    public let docType: String
    /// The status list and the credential's index in it, as the issuer signed them.
    public let reference: StatusReference
    /// The token form the reference points to: CWT for an mdoc, JWT for an SD-JWT VC.
    public var listFormat: StatusListFormat { format == "mso_mdoc" ? .cwt : .jwt }
    public let lastStatus: LastKnownStatus?
}

extension CredentialStore {
    /// The stored credentials that carry a status list reference (the credential `id` only, or
    /// every one for nil), oldest import first (mdocs, then SD-JWT VCs). A credential
    /// received in copies is checked with the reference of its first copy. A credential
    /// without a reference, or whose row cannot be read back, is not listed.
    /// - Throws: ``WalletError/unknownCredential(id:)`` when `id` names no credential.
    public func statusCheckTargets(id: String? = nil) throws(WalletError) -> [StatusCheckTarget] {
        let rows = try withDatabase { (db) throws(WalletError) in
            try sql { () throws(SQLiteError) in
                try db.query(
                    """
                    SELECT id, 'mso_mdoc', doc_type, issuer_signed, NULL, last_status, status_checked_at, imported_at
                    FROM credentials WHERE ?1 IS NULL OR id = ?1
                    UNION ALL SELECT id, 'dc+sd-jwt', vct, NULL, status, last_status, status_checked_at, imported_at
                    FROM sd_jwt_credentials WHERE ?1 IS NULL OR id = ?1
                    ORDER BY 2 DESC, 8
                    """, [.text(id)]
                ) { s in
                    (
                        id: s.text(0) ?? "", format: s.text(1) ?? "", docType: s.text(2) ?? "",
                        issuerSigned: s.blob(3), statusClaim: s.text(4), last: Self.lastStatus(s, at: 5)
                    )
                }
            }
        }
        if let id, rows.isEmpty { throw .unknownCredential(id: id) }
        return rows.compactMap { row in
            let reference =
                row.format == "mso_mdoc"
                ? row.issuerSigned.flatMap(Self.mdocStatusReference)
                : row.statusClaim.flatMap(Self.sdJWTStatusReference)
            guard let reference else { return nil }
            return StatusCheckTarget(
                id: row.id, format: row.format, docType: row.docType, reference: reference, lastStatus: row.last)
        }
    }

    /// Records what the issuer's status list says of the credential `id` now.
    /// - Throws: ``WalletError/unknownCredential(id:)`` when no credential has that ID (it
    ///   may have been deleted meanwhile).
    public func setLastStatus(id: String, _ status: LastKnownStatus) throws(WalletError) {
        let changed = try withDatabase { (db) throws(WalletError) in
            try sql { () throws(SQLiteError) in
                let values: [SQLiteValue] = [
                    .integer(Int64(status.status.rawValue)), .real(status.checkedAt.timeIntervalSince1970), .text(id),
                ]
                return try db.run(
                    "UPDATE credentials SET last_status = ?, status_checked_at = ? WHERE id = ?", values)
                    + db.run(
                        "UPDATE sd_jwt_credentials SET last_status = ?, status_checked_at = ? WHERE id = ?", values)
            }
        }
        guard changed > 0 else { throw .unknownCredential(id: id) }
    }

    /// The last known status of every credential checked at least once, by ID (read under the
    /// lock already held by the caller).
    func lastStatuses(_ db: SQLiteDatabase) throws(WalletError) -> [String: LastKnownStatus] {
        let rows = try sql { () throws(SQLiteError) in
            try db.query(
                """
                SELECT id, last_status, status_checked_at FROM credentials WHERE last_status IS NOT NULL
                UNION ALL SELECT id, last_status, status_checked_at FROM sd_jwt_credentials
                WHERE last_status IS NOT NULL
                """
            ) { s in (s.text(0) ?? "", Self.lastStatus(s, at: 1)) }
        }
        var statuses: [String: LastKnownStatus] = [:]
        for (id, status) in rows { statuses[id] = status }
        return statuses
    }

    /// The credentials whose last known status stops their presentation (INVALID or
    /// SUSPENDED), by ID.
    func withheldStatuses() throws(WalletError) -> [String: LastKnownStatus] {
        try withDatabase { (db) throws(WalletError) in try lastStatuses(db) }.filter { $0.value.withholdsPresentation }
    }

    /// The status of columns `at` (last_status) and `at + 1` (status_checked_at); nil before
    /// the first answer.
    static func lastStatus(_ s: SQLiteStatement, at column: Int32) -> LastKnownStatus? {
        guard !s.isNull(column), !s.isNull(column + 1), let value = UInt8(exactly: s.int64(column)) else { return nil }
        return LastKnownStatus(
            CredentialStatus(rawValue: value), checkedAt: Date(timeIntervalSince1970: s.double(column + 1)))
    }

    /// An mdoc's MSO `status` (ISO/IEC 18013-5 second edition), from the stored IssuerSigned.
    static func mdocStatusReference(_ issuerSignedBytes: [UInt8]) -> StatusReference? {
        guard let issuerSigned = try? IssuerSigned(bytes: issuerSignedBytes),
            let payload = issuerSigned.issuerAuth.payload,
            case .embedded(let mso) = try? CBOR.decode(payload), let status = mso.value["status"]
        else { return nil }
        return try? StatusReference(statusClaim: status)
    }

    /// An SD-JWT VC's `status.status_list`, from the stored `status` claim.
    static func sdJWTStatusReference(_ claim: String) -> StatusReference? {
        guard let value = try? JSONValue(parsing: claim) else { return nil }
        return try? StatusReference(statusClaim: value)
    }
}

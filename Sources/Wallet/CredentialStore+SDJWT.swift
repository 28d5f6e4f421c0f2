import FoundationEssentials
import JOSE
import MdocCrypto
import Presentation
import PrintableText
import SDJWT
import SDJWTPresentable
import SQLite
import SecureArea

extension CredentialStore {
    /// The text of an issuer's SD-JWT VC file, when the file is one (`<JWT>~...~`); nil for
    /// anything else (an mdoc's CBOR or hex).
    public static func sdJWTText(_ fileBytes: [UInt8]) -> String? {
        guard let text = String(bytes: fileBytes, encoding: .utf8)?.trimmingWhitespace(),
            let firstTilde = text.firstIndex(of: "~"), text[..<firstTilde].split(separator: ".").count == 3
        else { return nil }
        return text
    }

    /// Imports an SD-JWT VC issued to the private key `deviceKeyPEM` (which goes into the
    /// default secure area unless the store holds it already). Returns the new credential ID.
    ///
    /// Checked before anything is stored, in this order: the form and every Disclosure (RFC 9901
    /// section 7.1: each referenced exactly once, no claim twice, `_sd_alg` one we use), `typ`
    /// dc+sd-jwt with `vct`, `iss` and `cnf.jwk`; `nbf`/`exp` at `time`; with `verifyIssuer`,
    /// the issuer's signature with the `x5c` leaf and that chain to one of `trustAnchors`;
    /// that `cnf.jwk` is the key.
    @discardableResult
    public func importSDJWT(
        compact: String, deviceKeyPEM: String?, trustAnchors: [Certificate], issuerKeys: [JWK]? = nil,
        verifyIssuer: Bool = true, at time: Date = Date()
    ) throws(WalletError) -> String {
        let credential = try Self.checkSDJWT(
            compact, trustAnchors: trustAnchors, issuerKeys: issuerKeys, verifyIssuer: verifyIssuer, at: time)
        let deviceKey = try Self.readDeviceKey(deviceKeyPEM)
        guard deviceKey.publicKey == credential.holderKey else { throw .sdJWTKeyMismatch(keyID: nil) }
        let (key, isNew) = try keyForImport(deviceKey)
        return try storeSDJWT(credential, key: key, isNew: isNew)
    }

    /// Imports an SD-JWT VC issued to the stored key `keyID` (the same checks).
    @discardableResult
    public func importSDJWT(
        compact: String, keyID: String, trustAnchors: [Certificate], issuerKeys: [JWK]? = nil,
        verifyIssuer: Bool = true, at time: Date = Date()
    ) throws(WalletError) -> String {
        let credential = try Self.checkSDJWT(
            compact, trustAnchors: trustAnchors, issuerKeys: issuerKeys, verifyIssuer: verifyIssuer, at: time)
        let (key, publicKey) = try storedKeyWithPublicKey(id: keyID)
        guard publicKey == credential.holderKey else { throw .sdJWTKeyMismatch(keyID: keyID) }
        return try storeSDJWT(credential, key: key, isNew: false)
    }

    /// The checks of an SD-JWT VC import. The issuer is verified by its `x5c` chain to
    /// `trustAnchors`, or, for a JWT without `x5c`, with `issuerKeys` (from the issuer's JWT VC
    /// Issuer Metadata) when given.
    static func checkSDJWT(
        _ compact: String, trustAnchors: [Certificate], issuerKeys: [JWK]? = nil, verifyIssuer: Bool, at time: Date
    ) throws(WalletError) -> SDJWTVC {
        do {
            let credential = try SDJWTVC(issued: compact)
            try credential.checkValidity(at: time)
            if verifyIssuer {
                if let issuerKeys, !credential.hasCertificateChain {
                    try credential.verifyIssuer(keys: issuerKeys)
                } else {
                    try credential.verifyIssuer(trustAnchors: trustAnchors, at: time)
                }
            }
            return credential
        } catch {
            throw .sdJWTRefused(error)
        }
    }

    private func storeSDJWT(_ credential: SDJWTVC, key: StoredKey, isNew: Bool) throws(WalletError) -> String {
        try withDatabase { (db) throws(WalletError) in
            try transaction(db) {
                if isNew { try KeyRows.insert(key, into: db) }
                return try Self.insertSDJWT(credential, keyID: key.id, document: 1, into: db)
            }
        }
    }

    /// One SD-JWT VC row (inside the caller's transaction); refuses one stored already (as a
    /// credential or a copy of one).
    static func insertSDJWT(_ credential: SDJWTVC, keyID: String, document: Int, into db: SQLiteDatabase)
        throws -> String
    {
        let subject = (try? credential.sdJWT.issuerSignedJWT.certificateChain().first)?.subject
        let validFrom = credential.notBefore ?? credential.issuedAt
        if let id = try storedSDJWT(credential.compact, in: db) {
            throw WalletError.alreadyStored(document: document, id: id)
        }
        let id = try Self.newID(db, avoiding: [])
        try db.run(
            """
            INSERT INTO sd_jwt_credentials (id, vct, issuer, compact, key_id, issuer_subject,
                valid_from, valid_until, status, imported_at, claims)
            VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
            """,
            [
                .text(id), .text(credential.vct), .text(credential.issuer), .text(credential.compact),
                .text(keyID), .text(subject),
                validFrom.map { .real($0.timeIntervalSince1970) } ?? .null,
                credential.expires.map { .real($0.timeIntervalSince1970) } ?? .null,
                .text(credential.status.map { String(decoding: $0.serialized, as: UTF8.self) }),
                .real(Date().timeIntervalSince1970),
                .text(JSONList.encode(credential.claimPaths.map(\.description))),
            ])
        return id
    }

    /// The stored SD-JWT VCs, oldest import first; a row in `problems` (what
    /// ``readSDJWTs(id:)``, the check presentation uses, could not read) is listed with its
    /// problem, and its last known status from `statuses`.
    func sdJWTSummaries(
        _ db: SQLiteDatabase, problems: [UnreadableRow], copies: [String: (total: Int, unused: Int)],
        statuses: [String: LastKnownStatus]
    ) throws(WalletError) -> [CredentialSummary] {
        let problems = Dictionary(problems.map { ($0.id, $0) }, uniquingKeysWith: { first, _ in first })
        let rows = try sql { () throws(SQLiteError) in
            try db.query(
                """
                SELECT id, vct, issuer_subject, valid_from, valid_until, imported_at, claims, compact, issuer,
                    received_from
                FROM sd_jwt_credentials ORDER BY imported_at, rowid
                """
            ) { row in
                (
                    id: row.text(0) ?? "", vct: row.text(1) ?? "", subject: row.text(2),
                    validFrom: row.isNull(3) ? nil : row.double(3),
                    validUntil: row.isNull(4) ? nil : row.double(4), importedAt: row.double(5),
                    claims: row.text(6) ?? "",
                    compact: row.text(7) ?? "", issuer: row.text(8), receivedFrom: row.text(9)
                )
            }
        }
        return rows.map { r in
            let claims = (try? JSONList.decode(r.claims, id: r.id)) ?? []
            let problem = problems[r.id]?.description
            return CredentialSummary(
                id: r.id, format: "dc+sd-jwt", docType: r.vct, issuerSubject: r.subject ?? r.issuer,
                validFrom: Date(timeIntervalSince1970: r.validFrom ?? 0),
                validUntil: r.validUntil.map { Date(timeIntervalSince1970: $0) } ?? .distantFuture,
                importedAt: Date(timeIntervalSince1970: r.importedAt), elements: claims, problem: problem,
                receivedFrom: r.receivedFrom, copies: copies[r.id]?.total, unusedCopies: copies[r.id]?.unused,
                lastStatus: statuses[r.id])
        }
    }

    /// The SD-JWT VC `id` with its key, ready to present; nil when no SD-JWT VC has that ID.
    public func sdJWTCredential(id: String) throws(WalletError) -> PresentableSDJWT? {
        try readSDJWTs(id: id).readable.first
    }

    /// The SD-JWT VCs valid at `time` (no `nbf` after it, no `exp` before it), most recent
    /// import first, with their keys; `unreadable` hears of each row that cannot be read back,
    /// `withheld` of each left out for its last known status (INVALID or SUSPENDED).
    public func presentableSDJWTs(
        at time: Date = Date(), unreadable: (UnreadableRow) -> Void = { _ in },
        withheld: (WithheldCredential) -> Void = { _ in }
    ) throws(WalletError) -> [PresentableSDJWT] {
        let (readable, broken) = try readSDJWTs(id: nil)
        for row in broken { unreadable(row) }
        let valid = readable.filter { (try? $0.credential.checkValidity(at: time)) != nil }
        let statuses = try withheldStatuses()
        for sdJWT in valid {
            guard let status = statuses[sdJWT.id] else { continue }
            withheld(
                WithheldCredential(id: sdJWT.id, format: "dc+sd-jwt", docType: sdJWT.credential.vct, status: status))
        }
        return valid.filter { statuses[$0.id] == nil }
    }

    /// The SD-JWT VCs (`id` only, or every one for nil) that read back whole, and the others:
    /// the one check `list` and presentation share (the claim list, the SD-JWT and its key).
    /// A credential received in copies reads as the copy a presentation uses
    /// (``preferredSDJWTCopy(of:)``).
    func readSDJWTs(id: String?) throws(WalletError) -> (
        readable: [PresentableSDJWT], unreadable: [UnreadableRow]
    ) {
        let rows = try withDatabase { (db) throws(WalletError) in
            try sql { () throws(SQLiteError) in
                try db.query(
                    """
                    SELECT s.id, coalesce(p.compact, s.compact), coalesce(p.key_id, s.key_id), s.claims
                    FROM sd_jwt_credentials s LEFT JOIN sd_jwt_copies p
                        ON p.credential_id = s.id AND p.copy = \(Self.preferredSDJWTCopy(of: "s.id"))
                    WHERE ?1 IS NULL OR s.id = ?1 ORDER BY s.imported_at DESC, s.rowid DESC
                    """, [.text(id)]
                ) {
                    (id: $0.text(0) ?? "", compact: $0.text(1) ?? "", keyID: $0.text(2) ?? "", claims: $0.text(3) ?? "")
                }
            }
        }
        var readable: [PresentableSDJWT] = []
        var unreadable: [UnreadableRow] = []
        for row in rows {
            guard (try? JSONList.decode(row.claims, id: row.id)) != nil else {
                unreadable.append(
                    UnreadableRow(kind: .credential, id: row.id, reason: "its claim list is not readable"))
                continue
            }
            do {
                let credential = try SDJWTVC(issued: row.compact)
                readable.append(PresentableSDJWT(id: row.id, credential: credential, key: try deviceKey(id: row.keyID)))
            } catch {
                let reason = error is SDJWTError ? "its SD-JWT is not readable" : "its key is not usable"
                unreadable.append(UnreadableRow(kind: .credential, id: row.id, reason: reason))
            }
        }
        return (readable, unreadable)
    }

    /// What `show` shows of the SD-JWT VC `id`: claim paths, values (JSON) only when
    /// `includeValues`. Nil when no SD-JWT VC has that ID.
    func showSDJWT(id: String, includeValues: Bool) throws(WalletError) -> CredentialDetail? {
        let rows = try withDatabase { (db) throws(WalletError) in
            try sql { () throws(SQLiteError) in
                try db.query(
                    "SELECT compact, issuer_subject, imported_at, key_id FROM sd_jwt_credentials WHERE id = ?",
                    [.text(id)]
                ) {
                    (compact: $0.text(0) ?? "", subject: $0.text(1), importedAt: $0.double(2), keyID: $0.text(3) ?? "")
                }
            }
        }
        guard let row = rows.first else { return nil }
        let credential: SDJWTVC
        do {
            credential = try SDJWTVC(issued: row.compact)
        } catch {
            throw .corruptCredential(id: id, reason: "its SD-JWT is not readable")
        }
        let elements = credential.claimPaths.map { path in
            CredentialDetail.Element(
                id: path.description,
                value: includeValues
                    ? credential.claims.values(at: path).first.map { String(decoding: $0.serialized, as: UTF8.self) }
                    : nil)
        }
        return CredentialDetail(
            id: id, format: "dc+sd-jwt", docType: credential.vct, issuerSubject: row.subject ?? credential.issuer,
            validFrom: credential.notBefore ?? credential.issuedAt ?? Date(timeIntervalSince1970: 0),
            validUntil: credential.expires ?? .distantFuture,
            signed: credential.issuedAt ?? Date(timeIntervalSince1970: 0), expectedUpdate: nil,
            importedAt: Date(timeIntervalSince1970: row.importedAt), digestAlgorithm: credential.hashAlgorithm.rawValue,
            deviceKeyCurve: credential.holderKey.curve.rawValue, elements: elements)
    }
}

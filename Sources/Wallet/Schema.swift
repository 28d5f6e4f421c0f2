import SQLite

/// The store's schema, one migration per version: migration `n` takes a database from
/// `user_version` n-1 to n. A released migration is never edited; changes are new migrations.
enum Schema {
    /// `PRAGMA application_id` of a credential store ("mdoc" in ASCII), set by migration 1.
    static let applicationID: Int64 = 0x6D64_6F63

    static let migrations: [String] = [
        // 1: credentials and history.
        """
        CREATE TABLE credentials (
            id TEXT PRIMARY KEY NOT NULL,       -- 16 random hex digits
            doc_type TEXT NOT NULL,
            issuer_signed BLOB NOT NULL,        -- IssuerSigned CBOR as received; item bytes untouched
            device_key_pem TEXT NOT NULL,       -- PKCS#8 PEM of the device private key
            issuer_subject TEXT,                -- document signer certificate subject
            valid_from REAL NOT NULL,           -- MSO validityInfo, seconds since 1970
            valid_until REAL NOT NULL,
            imported_at REAL NOT NULL,
            elements TEXT NOT NULL              -- JSON array of "namespace:element", no values
        ) STRICT;
        CREATE TABLE history (
            id INTEGER PRIMARY KEY,
            time REAL NOT NULL,                 -- seconds since 1970
            channel TEXT NOT NULL,              -- "ble" or "online"
            requester_name TEXT NOT NULL,
            requester_identifier TEXT,
            authentication TEXT NOT NULL,       -- RequesterAuthentication.summary
            doc_type TEXT NOT NULL,
            elements_sent TEXT NOT NULL,        -- JSON array of "namespace:element", no values
            decision TEXT NOT NULL CHECK (decision IN ('sent', 'declined', 'failed')),
            decision_reason TEXT                -- for 'failed'
        ) STRICT;
        PRAGMA application_id = \(applicationID);
        """,
        // 2: lookups by doc type (presentation) and history in time order.
        """
        CREATE INDEX credentials_by_doc_type ON credentials (doc_type);
        CREATE INDEX history_by_time ON history (time);
        """,
        // 3: device keys in secure areas. The plaintext device_key_pem column is moved into
        // keys by KeyMigration (wrapped in the software area) and dropped, in this transaction.
        """
        CREATE TABLE keys (
            id TEXT PRIMARY KEY NOT NULL,       -- 16 random hex digits
            secure_area TEXT NOT NULL,          -- software | tpm2 | pkcs11
            curve TEXT NOT NULL,                -- "P-256", ...
            public_key BLOB NOT NULL,           -- SubjectPublicKeyInfo DER
            key_blob BLOB NOT NULL,             -- what the area needs: wrapped key, TSS2 PEM, PKCS#11 URI
            requires_passphrase INTEGER NOT NULL,
            created_at REAL NOT NULL
        ) STRICT;
        ALTER TABLE credentials ADD COLUMN key_id TEXT REFERENCES keys (id);
        CREATE INDEX credentials_by_key ON credentials (key_id);
        """,
        // 4: credentials received over OpenID4VCI: the issuer, the notification id, batch copies
        // (one key each; the credentials row keeps copy 0), deferred issuances still pending;
        // the history records issuance ('received', with the number of copies).
        """
        ALTER TABLE credentials ADD COLUMN issuer TEXT;                 -- Credential Issuer Identifier
        ALTER TABLE credentials ADD COLUMN notification_id TEXT;
        ALTER TABLE credentials ADD COLUMN notification_endpoint TEXT;
        ALTER TABLE credentials ADD COLUMN notification_token TEXT;    -- Bearer token for credential_deleted
        CREATE TABLE credential_copies (
            credential_id TEXT NOT NULL REFERENCES credentials (id),
            copy INTEGER NOT NULL,              -- 0 is the credentials row's own
            issuer_signed BLOB NOT NULL,
            key_id TEXT NOT NULL REFERENCES keys (id),
            presented_at REAL,                  -- first presentation; NULL while unused
            PRIMARY KEY (credential_id, copy)
        ) STRICT;
        CREATE TABLE pending_issuances (
            id TEXT PRIMARY KEY NOT NULL,       -- 16 random hex digits
            issuer TEXT NOT NULL,               -- Credential Issuer Identifier
            issuer_name TEXT NOT NULL,
            doc_type TEXT NOT NULL,
            transaction_id TEXT NOT NULL,
            endpoint TEXT NOT NULL,             -- deferred_credential_endpoint
            notification_endpoint TEXT,
            access_token TEXT NOT NULL,         -- a secret, deleted with the row
            token_type TEXT NOT NULL,           -- "Bearer" or "DPoP"
            dpop_key_id TEXT REFERENCES keys (id),
            key_ids TEXT NOT NULL,              -- JSON array of the keys proved, in order
            interval REAL NOT NULL,
            created_at REAL NOT NULL
        ) STRICT;
        CREATE TABLE history_v4 (
            id INTEGER PRIMARY KEY,
            time REAL NOT NULL,
            channel TEXT NOT NULL,              -- "ble", "online" or "issuance"
            requester_name TEXT NOT NULL,       -- issuance: the issuer's display name
            requester_identifier TEXT,          -- issuance: the Credential Issuer Identifier
            authentication TEXT NOT NULL,
            doc_type TEXT NOT NULL,
            elements_sent TEXT NOT NULL,        -- issuance: the elements received, no values
            decision TEXT NOT NULL CHECK (decision IN ('sent', 'declined', 'failed', 'received')),
            decision_reason TEXT,
            copies INTEGER                      -- issuance: how many copies were stored
        ) STRICT;
        INSERT INTO history_v4 (id, time, channel, requester_name, requester_identifier, authentication, doc_type,
            elements_sent, decision, decision_reason)
            SELECT id, time, channel, requester_name, requester_identifier, authentication, doc_type, elements_sent,
                decision, decision_reason FROM history;
        DROP TABLE history;
        ALTER TABLE history_v4 RENAME TO history;
        CREATE INDEX history_by_time ON history (time);
        """,
        // 5: SD-JWT VCs (dc+sd-jwt), beside the mdocs of `credentials`; IDs are unique across both.
        """
        CREATE TABLE sd_jwt_credentials (
            id TEXT PRIMARY KEY NOT NULL,       -- 16 random hex digits
            vct TEXT NOT NULL,
            issuer TEXT NOT NULL,               -- iss
            compact TEXT NOT NULL,              -- issuer-signed JWT and every Disclosure, as issued
            key_id TEXT NOT NULL REFERENCES keys (id),  -- the cnf.jwk key
            issuer_subject TEXT,                -- x5c leaf certificate subject
            valid_from REAL,                    -- nbf (or iat), seconds since 1970
            valid_until REAL,                   -- exp
            status TEXT,                        -- the status claim (a status list reference) as JSON
            imported_at REAL NOT NULL,
            claims TEXT NOT NULL                -- JSON array of claim paths, no values
        ) STRICT;
        CREATE INDEX sd_jwt_credentials_by_vct ON sd_jwt_credentials (vct);
        CREATE INDEX sd_jwt_credentials_by_key ON sd_jwt_credentials (key_id);
        """,
        // 6: an SD-JWT VC batch is one credential: its copies (one key each; the row keeps copy
        // 0) and what a later credential_deleted notification needs. Rows stored before, one
        // per copy, stay credentials without copies.
        """
        ALTER TABLE sd_jwt_credentials ADD COLUMN received_from TEXT;   -- Credential Issuer Identifier
        ALTER TABLE sd_jwt_credentials ADD COLUMN notification_id TEXT;
        ALTER TABLE sd_jwt_credentials ADD COLUMN notification_endpoint TEXT;
        ALTER TABLE sd_jwt_credentials ADD COLUMN notification_token TEXT;  -- Bearer token for credential_deleted
        CREATE TABLE sd_jwt_copies (
            credential_id TEXT NOT NULL REFERENCES sd_jwt_credentials (id),
            copy INTEGER NOT NULL,              -- 0 is the sd_jwt_credentials row's own
            compact TEXT NOT NULL,
            key_id TEXT NOT NULL REFERENCES keys (id),
            presented_at REAL,                  -- first presentation; NULL while unused
            PRIMARY KEY (credential_id, copy)
        ) STRICT;
        CREATE INDEX sd_jwt_copies_by_key ON sd_jwt_copies (key_id);
        """,
        // 7: a pending issuance keeps the response-encryption key of its credential request
        // (wrapped in the software area, as its DPoP key): the deferred answer may come to it.
        """
        ALTER TABLE pending_issuances ADD COLUMN response_key_id TEXT REFERENCES keys (id);
        """,
        // 8: the last known status of each credential in its issuer's Token Status List
        // (draft-ietf-oauth-status-list: 0 VALID, 1 INVALID, 2 SUSPENDED, others as the draft
        // says) and when it was checked; NULL until a check gave an answer.
        """
        ALTER TABLE credentials ADD COLUMN last_status INTEGER CHECK (last_status BETWEEN 0 AND 255);
        ALTER TABLE credentials ADD COLUMN status_checked_at REAL;      -- seconds since 1970
        ALTER TABLE sd_jwt_credentials ADD COLUMN last_status INTEGER CHECK (last_status BETWEEN 0 AND 255);
        ALTER TABLE sd_jwt_credentials ADD COLUMN status_checked_at REAL;
        """,
        // 9: the use case of a second-edition DeviceRequest (deviceRequestInfo) a presentation
        // answered, in words ("use case 1 (mandatory), document set 2"); NULL otherwise.
        """
        ALTER TABLE history ADD COLUMN use_case TEXT;
        """,
    ]

    /// The version this code writes.
    static var currentVersion: Int { migrations.count }

    /// Brings `db` to ``currentVersion``, in one transaction. Refuses a newer version and a
    /// database of another application.
    ///
    /// `afterMigration` runs after each migration's SQL, in the same transaction, with the
    /// version just reached (KeyMigration moves plaintext keys at 3).
    @discardableResult
    static func migrate(
        _ db: SQLiteDatabase, path: String, afterMigration: (SQLiteDatabase, Int) throws -> Void = { _, _ in }
    ) throws(WalletError) -> Int {
        func check(_ version: Int) throws(WalletError) {
            if version > currentVersion {
                throw .schemaTooNew(path: path, found: version, supported: currentVersion)
            }
        }
        let initial: Int
        do {
            initial = try db.userVersion()
        } catch {
            if error.isNotADatabase {
                throw .notAWallet(path: path, reason: "not an SQLite database")
            }
            throw .database(path: path, error)
        }
        try check(initial)
        guard initial < currentVersion else {
            try checkApplication(db, path: path)
            return initial
        }
        try db.storeTransaction(path: path) {
            // Another process may have migrated between our read and our lock.
            let version = try db.userVersion()
            try check(version)
            if version == 0 { try checkEmpty(db, path: path) }
            for (index, migration) in migrations[version..<currentVersion].enumerated() {
                try db.execute(migration)
                try afterMigration(db, version + index + 1)
            }
            try db.setUserVersion(currentVersion)
        }
        try checkApplication(db, path: path)
        return initial
    }

    /// A version-0 file must hold no tables: anything else is another application's data.
    private static func checkEmpty(_ db: SQLiteDatabase, path: String) throws(WalletError) {
        let tables: [Int64]
        do {
            tables = try db.query("SELECT count(*) FROM sqlite_schema") { $0.int64(0) }
        } catch {
            throw .database(path: path, error)
        }
        if let count = tables.first, count > 0 {
            throw .notAWallet(path: path, reason: "it holds \(count) tables of another schema")
        }
    }

    private static func checkApplication(_ db: SQLiteDatabase, path: String) throws(WalletError) {
        let id: Int64
        do {
            id = try db.query("PRAGMA application_id") { $0.int64(0) }.first ?? 0
        } catch {
            throw .database(path: path, error)
        }
        guard id == applicationID else {
            throw .notAWallet(path: path, reason: "its application_id is \(id), not mdoc-holder's")
        }
    }
}

import CBOR
import Consent
import Foundation
import MdocCrypto
import MdocIssuer
import Presentation
import SQLite
import SecureArea
import Testing

@testable import Wallet

/// Credentials received over OpenID4VCI: every copy checked as an import is, all copies or
/// none, one credential with its copies, presentations that prefer an unused copy, and the
/// schema-3 store migrated to 4.
struct ReceiveTests {
    static let mDL = "org.iso.18013.5.1.mDL"
    static let ns = "org.iso.18013.5.1"
    let dir: TemporaryDirectory
    let store: CredentialStore
    let pki: TestPKI
    let source = IssuanceSource(
        issuer: "https://issuer.example", issuerName: "Example DMV", notificationID: "n-1",
        notificationEndpoint: "https://issuer.example/notify", notificationToken: "bearer-token")

    init() throws {
        dir = try TemporaryDirectory()
        store = try dir.store()
        pki = try TestPKI.generate()
    }

    /// `count` keys made in the software area (not stored), each with a credential issued to it.
    func copies(_ count: Int, pki: TestPKI? = nil, docType: String = mDL) throws -> [ReceivedCopy] {
        let pki = pki ?? self.pki
        return try (0..<count).map { _ in
            let key = try store.secureAreas.software.createKey(KeySettings())
            let issued = try MdocIssuer.issue(
                docType: docType,
                nameSpaces: [(Self.ns, [("family_name", .text("Doe")), ("age_over_18", .bool(true))])],
                deviceKey: try key.publicKey(), documentSignerKey: pki.documentSignerKey,
                documentSignerChain: [pki.documentSigner], validFrom: Date().addingTimeInterval(-60),
                validUntil: Date().addingTimeInterval(86400))
            return ReceivedCopy(issuerSignedBytes: issued.cbor.encoded(), key: key)
        }
    }

    @Test func storesThreeCopiesAsOneCredentialWithTheirKeys() throws {
        let id = try store.receive(try copies(3), docType: Self.mDL, from: source, trustAnchors: [pki.iaca])
        let listed = try #require(try store.list().first)
        #expect(listed.id == id)
        #expect(listed.receivedFrom == "https://issuer.example")
        #expect(listed.copies == 3)
        #expect(listed.unusedCopies == 3)
        #expect(try store.keys().filter { $0.credentials == [id] }.count == 3)
        let history = try store.history()
        #expect(history.map(\.decision) == [.received])
        #expect(history.first?.copies == 3)
        #expect(history.first?.channel == .issuance)
        #expect(history.first?.authentication == "TLS certificate of issuer.example")
        #expect(!source.description.contains("bearer-token"))
        #expect(history.first?.elementsSent.contains("\(Self.ns):family_name") == true)
        let pending = try #require(try store.pendingNotification(forDeleting: id))
        #expect(pending.notificationID == "n-1")
        #expect(pending.token == "bearer-token")
        #expect(!pending.description.contains("bearer-token"))
    }

    @Test func issuedCredentialsArePairedWithTheKeyTheirMSONames() throws {
        let received = try copies(3)
        // The issuer answers in another order than the keys were proved in.
        let id = try #require(
            try store.receive(
                .mdoc(received.reversed().map(\.issuerSignedBytes)), keys: received.map(\.key), docType: Self.mDL,
                from: source, trustAnchors: [pki.iaca]
            ).first)
        #expect(try store.list().first?.copies == 3)
        #expect(Set(try store.keys().filter { $0.credentials == [id] }.map(\.key.id)) == Set(received.map(\.key.id)))
    }

    @Test func issuedCredentialsForAnotherCountOfKeysOrAnotherKeyAreRefused() throws {
        let received = try copies(2)
        #expect {
            try store.receive(
                .mdoc([received[0].issuerSignedBytes]), keys: received.map(\.key), docType: Self.mDL, from: source,
                trustAnchors: [pki.iaca])
        } throws: { error in
            guard case WalletError.malformedDocument = error else { return false }
            return true
        }
        let stranger = try copies(1)[0]
        #expect {
            try store.receive(
                .mdoc([stranger.issuerSignedBytes]), keys: [received[0].key], docType: Self.mDL, from: source,
                trustAnchors: [pki.iaca])
        } throws: { error in
            guard case WalletError.keyDoesNotMatch(let keyID, _, _) = error else { return false }
            return keyID == received[0].key.id
        }
        #expect(try store.list().isEmpty)
    }

    @Test func aPresentationUsesAnUnusedCopyEachTime() throws {
        let received = try copies(3)
        let id = try store.receive(received, docType: Self.mDL, from: source, trustAnchors: [pki.iaca])
        var shown: [[UInt8]] = []
        for _ in 0..<3 {
            let credential = try store.credential(id: id)
            shown.append(credential.issuerSignedBytes)
            let requester = Requester(displayName: "Shop", authentication: .unauthenticated)
            try store.record(
                [
                    PresentationRecord(
                        requester: requester, docType: Self.mDL, elementsSent: [], outcome: .sent, credentialID: id)
                ], channel: .online)
        }
        #expect(Set(shown) == Set(received.map(\.issuerSignedBytes)))
        #expect(try store.list().first?.unusedCopies == 0)
        // When every copy was shown, the one shown longest ago comes back first.
        #expect(try store.credential(id: id).issuerSignedBytes == shown[0])
    }

    @Test func oneUntrustedCopyStoresNothing() throws {
        var received = try copies(2)
        received += try copies(1, pki: try TestPKI.generate())
        #expect(throws: WalletError.self) {
            try store.receive(received, docType: Self.mDL, from: source, trustAnchors: [pki.iaca])
        }
        #expect(try store.list().isEmpty)
        #expect(try store.keys().isEmpty)
    }

    @Test func aCopyBoundToAnotherKeyIsRefused() throws {
        var received = try copies(2)
        received[1].key = received[0].key
        #expect(throws: WalletError.self) {
            try store.receive(received, docType: Self.mDL, from: source, trustAnchors: [pki.iaca])
        }
        #expect(try store.list().isEmpty)
    }

    @Test func anotherDocTypeThanOfferedIsRefused() throws {
        #expect(throws: WalletError.self) {
            try store.receive(
                try copies(1, docType: "org.example.other"), docType: Self.mDL, from: source, trustAnchors: [pki.iaca])
        }
    }

    @Test func deletingACredentialDeletesItsCopies() throws {
        let id = try store.receive(try copies(2), docType: Self.mDL, from: source, trustAnchors: [pki.iaca])
        try store.delete(id: id)
        #expect(try store.list().isEmpty)
        let db = try SQLiteDatabase(path: dir.file("wallet.sqlite"))
        #expect(try db.query("SELECT count(*) FROM credential_copies") { $0.int64(0) } == [0])
        // Its keys were made for it alone: they are gone too.
        #expect(try store.keys().isEmpty)
    }

    @Test func aPendingIssuanceKeepsItsKeysAndEndsWithTheCredential() throws {
        let received = try copies(2)
        let dpopKey = try store.secureAreas.software.createKey(KeySettings())
        let pending = PendingIssuance(
            id: "0011223344556677", issuer: "https://issuer.example", issuerName: "Example DMV", docType: Self.mDL,
            transactionID: "tx-secret", endpoint: "https://issuer.example/deferred", notificationEndpoint: nil,
            accessToken: "token-secret", tokenType: "DPoP", dpopKeyID: nil, keyIDs: received.map(\.key.id), interval: 5)
        let responseKey = try store.secureAreas.software.createKey(KeySettings())
        let id = try store.savePending(
            pending, keys: received.map(\.key), dpopKey: dpopKey, responseKey: responseKey)
        let listed = try #require(try store.pendingIssuances().first)
        #expect(listed.id == id)
        #expect(listed.keyIDs == received.map(\.key.id))
        #expect(listed.dpopKeyID == dpopKey.id)
        #expect(listed.responseKeyID == responseKey.id)
        #expect(!listed.description.contains("secret"))
        #expect(try store.keys().count == 4)
        let credential = try store.receive(
            received, docType: Self.mDL, from: source, trustAnchors: [pki.iaca], completingPending: id)
        #expect(try store.pendingIssuances().isEmpty)
        // The proved keys now belong to the credential; the DPoP and response keys are gone.
        #expect(try store.keys().map(\.key.id).sorted() == received.map(\.key.id).sorted())
        #expect(try store.keys().allSatisfy { $0.credentials == [credential] })
    }

    @Test func removingAPendingIssuanceRemovesItsKeys() throws {
        let received = try copies(1)
        let id = try store.savePending(
            PendingIssuance(
                id: "a", issuer: "https://i.example", issuerName: "I", docType: Self.mDL, transactionID: "t",
                endpoint: "https://i.example/d", notificationEndpoint: nil, accessToken: "x", tokenType: "Bearer",
                dpopKeyID: nil, keyIDs: [received[0].key.id], interval: 1), keys: [received[0].key], dpopKey: nil)
        let removed = try store.removePending(id: id, keepKeys: false)
        #expect(removed.map(\.id) == [received[0].key.id])
        #expect(try store.keys().isEmpty)
        #expect(try store.pendingIssuances().isEmpty)
    }

    @Test func migratesASchema3StoreTo4KeepingItsHistory() throws {
        let path = dir.file("old.sqlite")
        do {
            let old = try SQLiteDatabase(path: path)
            // Schema 3 as release 3 wrote it: migrations 1-3, the plaintext key column dropped.
            for migration in Schema.migrations[0..<3] { try old.execute(migration) }
            try old.execute("ALTER TABLE credentials DROP COLUMN device_key_pem")
            try old.setUserVersion(3)
            _ = try old.run(
                """
                INSERT INTO history (time, channel, requester_name, authentication, doc_type, elements_sent, decision)
                VALUES (1700000000, 'ble', 'Old reader', 'not authenticated', 'org.iso.18013.5.1.mDL', '[]', 'declined')
                """)
        }
        let migrated = try CredentialStore(path: path, secureAreas: .inMemory)
        #expect(try SQLiteDatabase(path: path).userVersion() == CredentialStore.schemaVersion)
        #expect(try migrated.history().map(\.requesterName) == ["Old reader"])
        #expect(try migrated.history().first?.copies == nil)
        // A received credential and its 'received' history entry fit the new schema.
        let id = try migrated.receive(try copies(1), docType: Self.mDL, from: source, trustAnchors: [pki.iaca])
        #expect(try migrated.list().map(\.id) == [id])
        #expect(try migrated.history().map(\.decision) == [.declined, .received])
    }
}

import Consent
import Foundation
import MdocCrypto
import Presentation
import SDJWT
import SQLite
import SecureArea
import Testing

@testable import Wallet

/// An SD-JWT VC batch received over OpenID4VCI is one credential with N one-time copies, each
/// bound to its own key, as an mdoc's copies are.
extension SDJWTImportTests {
    static let notifying = IssuanceSource(
        issuer: "https://issuer.example", issuerName: "Example PID issuer", notificationID: "n-1",
        notificationEndpoint: "https://issuer.example/notification", notificationToken: "token-1")

    /// Receives a batch of `count`, the issuer's order not the order of the proofs.
    private func receiveBatch(_ count: Int) throws -> (id: String, keys: [StoredKey]) {
        let keys = try newKeys(count)
        let compacts = try keys.reversed().map { try issue(holder: try $0.publicKey()) }
        let ids = try store.receiveSDJWT(
            compacts, keys: keys, vct: "urn:eudi:pid:1", from: Self.notifying, trustAnchors: [anchor], at: now)
        return (try #require(ids.count == 1 ? ids.first : nil), keys)
    }

    /// A sent presentation of `id`, recorded as the online flow records it.
    private func recordSent(_ id: String) throws {
        let requester = Requester(displayName: "Shop", authentication: .unauthenticated)
        try store.record(
            [
                PresentationRecord(
                    requester: requester, docType: "urn:eudi:pid:1", elementsSent: [], outcome: .sent, credentialID: id)
            ], channel: .online)
    }

    @Test func aReceivedBatchIsOneCredentialWithItsCopiesEachBoundToItsOwnKey() throws {
        let (id, keys) = try receiveBatch(3)
        let listed = try store.list()
        #expect(listed.map(\.id) == [id])
        #expect(listed.first?.format == "dc+sd-jwt" && listed.first?.receivedFrom == "https://issuer.example")
        #expect(listed.first?.copies == 3 && listed.first?.unusedCopies == 3)
        let bound = try store.keys()
        #expect(Set(bound.map(\.key.id)) == Set(keys.map(\.id)) && bound.allSatisfy { $0.credentials == [id] })
        let entry = try #require(try store.history().last)
        #expect(entry.decision == .received && entry.copies == 3)
    }

    @Test func threePresentationsUseThreeDifferentCopiesThenTheOneUsedLongestAgo() throws {
        let (id, keys) = try receiveBatch(3)
        var shown: [PublicKey] = []
        for unused in [2, 1, 0] {
            let copy = try #require(try store.presentableSDJWTs(at: now).first)
            #expect(copy.id == id && copy.key.publicKey == copy.credential.holderKey)
            shown.append(copy.credential.holderKey)
            try recordSent(id)
            #expect(try store.list().first?.unusedCopies == unused)
        }
        #expect(
            Set(shown.map(\.subjectPublicKeyInfoDER))
                == Set(try keys.map { try $0.publicKey().subjectPublicKeyInfoDER }))
        #expect(try store.sdJWTCredential(id: id)?.credential.holderKey == shown[0])
    }

    @Test func deletingTheCredentialDeletesEveryCopyAndKeyAndOwesOneNotification() throws {
        let (id, _) = try receiveBatch(3)
        let pending = try #require(try store.pendingNotification(forDeleting: id))
        #expect(pending.notificationID == "n-1" && pending.issuer == "https://issuer.example")
        try store.delete(id: id)
        #expect(try store.list().isEmpty)
        #expect(try store.keys().isEmpty)
        #expect(try store.pendingNotification(forDeleting: id) == nil)
        let db = try SQLiteDatabase(path: dir.file("wallet.sqlite"))
        #expect(try db.query("SELECT count(*) FROM sd_jwt_copies") { $0.int64(0) } == [0])
    }

    @Test func aCopyOfAStoredBatchIsNotStoredAgain() throws {
        let keys = try newKeys(2)
        let compacts = try keys.map { try issue(holder: try $0.publicKey()) }
        let ids = try store.receiveSDJWT(
            compacts, keys: keys, vct: "urn:eudi:pid:1", from: Self.notifying, trustAnchors: [anchor], at: now)
        #expect(throws: WalletError.alreadyStored(document: 1, id: ids[0])) {
            try store.importSDJWT(compact: compacts[1], keyID: keys[1].id, trustAnchors: [anchor], at: now)
        }
        #expect(try store.list().map(\.id) == ids)
    }

    @Test func deletingOneKeyOfABatchDeletesTheCredentialWithEveryCopy() throws {
        let (_, keys) = try receiveBatch(2)
        try store.deleteKey(id: keys[1].id, withCredentials: true)
        #expect(try store.list().isEmpty)
    }

    @Test func aSchema5StoreKeepsItsSDJWTVCsStoredOnePerCopy() throws {
        let path = dir.file("old.sqlite")
        let key = try newKeys(1)[0]
        do {
            let old = try SQLiteDatabase(path: path)
            for migration in Schema.migrations[0..<5] { try old.execute(migration) }
            try old.execute("ALTER TABLE credentials DROP COLUMN device_key_pem")
            try old.setUserVersion(5)
            try KeyRows.insert(key, into: old)
            // The row as schema 5 wrote it for each copy of a batch.
            _ = try old.run(
                """
                INSERT INTO sd_jwt_credentials (id, vct, issuer, compact, key_id, imported_at, claims)
                VALUES ('00112233aabbccdd', 'urn:eudi:pid:1', 'https://pid-issuer.example', ?, ?, ?, '["given_name"]')
                """, [.text(try issue(holder: try key.publicKey())), .text(key.id), .real(now.timeIntervalSince1970)])
        }
        let migrated = try dir.store("old.sqlite")
        let listed = try migrated.list()
        #expect(listed.count == 1 && listed.first?.copies == nil && listed.first?.problem == nil)
        let id = try #require(listed.first?.id)
        #expect(try migrated.presentableSDJWTs(at: now).map(\.id) == [id])
        #expect(try migrated.pendingNotification(forDeleting: id) == nil)
        try migrated.delete(id: id)
        #expect(try migrated.list().isEmpty)
    }
}

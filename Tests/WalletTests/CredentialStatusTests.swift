import CBOR
import Foundation
import MdocCrypto
import MdocIssuer
import SQLite
import SecureArea
import Testing
import TokenStatusList

@testable import Wallet

/// The last known status of each credential (schema 8): which credentials carry a status list
/// reference, recording an answer, listing it, and leaving out of presentation those revoked or
/// suspended.
struct CredentialStatusTests {
    static let mDL = "org.iso.18013.5.1.mDL"
    static let uri = "https://issuer.example/lists/1"
    let dir: TemporaryDirectory
    let store: CredentialStore
    let pki: TestPKI

    init() throws {
        dir = try TemporaryDirectory()
        store = try dir.store()
        pki = try TestPKI.generate()
    }

    /// An mDL issued to a fresh key, with the MSO status reference `index` when given; its ID.
    func importMDL(statusIndex index: UInt64?) throws -> String {
        let key = try PrivateKey.generate(.p256)
        let issued = try MdocIssuer.issue(
            docType: Self.mDL, nameSpaces: [("org.iso.18013.5.1", [("family_name", .text("Doe"))])],
            deviceKey: key.publicKey, documentSignerKey: pki.documentSignerKey,
            documentSignerChain: [pki.documentSigner], validFrom: Date().addingTimeInterval(-60),
            validUntil: Date().addingTimeInterval(86400),
            status: index.map { StatusReference(index: $0, uri: Self.uri).cbor })
        return try store.import(
            fileBytes: issued.cbor.encoded(), deviceKeyPEM: try key.pkcs8PEM(), trustAnchors: [pki.iaca])[0]
    }

    @Test func onlyCredentialsWithAReferenceAreTargets() throws {
        let with = try importMDL(statusIndex: 42)
        _ = try importMDL(statusIndex: nil)
        let targets = try store.statusCheckTargets()
        #expect(targets.map(\.id) == [with])
        #expect(targets.first?.reference == StatusReference(index: 42, uri: Self.uri))
        #expect(targets.first?.listFormat == .cwt)
        #expect(targets.first?.lastStatus == nil)
        #expect(throws: WalletError.unknownCredential(id: "0000000000000000")) {
            try store.statusCheckTargets(id: "0000000000000000")
        }
    }

    @Test func anAnswerIsStoredListedAndShown() throws {
        let id = try importMDL(statusIndex: 1)
        #expect(try store.list().first?.lastStatus == nil)
        let checked = Date(timeIntervalSince1970: 1_800_000_000)
        try store.setLastStatus(id: id, LastKnownStatus(.suspended, checkedAt: checked))
        let listed = try #require(try store.list().first?.lastStatus)
        #expect(listed.status == .suspended)
        #expect(listed.checkedAt == checked)
        #expect(try store.show(id: id).lastStatus == listed)
        #expect(try store.statusCheckTargets(id: id).first?.lastStatus == listed)
        let json = String(decoding: try JSONEncoder().encode(try store.list()), as: UTF8.self)
        #expect(json.contains("\"status\":\"suspended\""), "\(json)")
        #expect(throws: WalletError.unknownCredential(id: "0000000000000000")) {
            try store.setLastStatus(id: "0000000000000000", LastKnownStatus(.valid, checkedAt: checked))
        }
    }

    @Test(arguments: [(CredentialStatus.invalid, true), (.suspended, true), (.valid, false), (.other(3), false)])
    func presentationLeavesOutRevokedAndSuspended(status: CredentialStatus, withheld: Bool) throws {
        let id = try importMDL(statusIndex: 5)
        let other = try importMDL(statusIndex: nil)
        try store.setLastStatus(id: id, LastKnownStatus(status, checkedAt: Date()))
        var told: [WithheldCredential] = []
        let presentable = try store.presentableCredentials(withheld: { told.append($0) })
        #expect(Set(presentable.map(\.id)) == (withheld ? [other] : [id, other]))
        #expect(told.map(\.id) == (withheld ? [id] : []))
        if let reason = told.first?.reason(name: Self.mDL) {
            #expect(reason.hasPrefix("credential \(id) (\(Self.mDL)) is not presented"))
            #expect(reason.contains("marks it \(status)"))
        }
    }

    @Test func aStatusStoreMigratesFromVersion7() throws {
        let path = dir.file("old.sqlite")
        do {
            let db = try SQLiteDatabase(path: path)
            for migration in Schema.migrations.prefix(7) { try db.execute(migration) }
            try db.setUserVersion(7)
        }
        _ = try CredentialStore(path: path, secureAreas: store.secureAreas)
        let db = try SQLiteDatabase(path: path)
        #expect(try db.userVersion() == Schema.currentVersion)
        for table in ["credentials", "sd_jwt_credentials"] {
            let columns = try db.query("SELECT name FROM pragma_table_info('\(table)')") { $0.text(0) ?? "" }
            #expect(columns.contains("last_status") && columns.contains("status_checked_at"), "\(table)")
        }
        let history = try db.query("SELECT name FROM pragma_table_info('history')") { $0.text(0) ?? "" }
        #expect(history.contains("use_case"))
    }
}

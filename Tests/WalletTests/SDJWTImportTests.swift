import Foundation
import JOSE
import MdocCrypto
import SDJWT
import SQLite
import SecureArea
import TestSupport
import Testing

@testable import Wallet

/// SD-JWT VCs in the store: imported after every check, listed and shown like mdocs (claim
/// paths, values only on request), refused with nothing stored.
struct SDJWTImportTests {
    let dir: TemporaryDirectory
    let store: CredentialStore
    let holderKey: PrivateKey
    let issuerKey: PrivateKey
    let anchor: Certificate
    let issuerCertificate: Certificate
    let now = Date()

    init() throws {
        dir = try TemporaryDirectory()
        store = try dir.store()
        holderKey = try PrivateKey.generate(.p256)
        issuerKey = try PrivateKey.generate(.p256)
        let caKey = try PrivateKey.generate(.p256)
        var ca = CertificateBuilder(
            subject: DistinguishedName(country: "DE", commonName: "Test SD-JWT CA"), subjectPublicKey: caKey.publicKey,
            notBefore: now.addingTimeInterval(-3600), notAfter: now.addingTimeInterval(86_400))
        ca.basicConstraints = .certificateAuthority(pathLength: 0)
        ca.keyUsage = [.keyCertSign, .cRLSign]
        anchor = try ca.selfSigned(with: caKey)
        var leaf = CertificateBuilder(
            subject: DistinguishedName(country: "DE", commonName: "Test PID Issuer"),
            subjectPublicKey: issuerKey.publicKey, notBefore: now.addingTimeInterval(-3600),
            notAfter: now.addingTimeInterval(86_400))
        leaf.basicConstraints = .endEntity
        leaf.keyUsage = [.digitalSignature]
        issuerCertificate = try leaf.issued(by: anchor, issuerKey: caKey)
    }

    func issue(exp: TimeInterval = 86_400, holder: PublicKey? = nil, status: JSONValue? = nil) throws -> String {
        var claims: [String: JSONValue] = [
            "iss": "https://pid-issuer.example", "vct": "urn:eudi:pid:1",
            "iat": .number(now.timeIntervalSince1970.rounded(.down)),
            "exp": .number((now.timeIntervalSince1970 + exp).rounded(.down)),
            "cnf": ["jwk": try JWK(publicKey: holder ?? holderKey.publicKey).json()],
            "given_name": "Erika", "address": ["locality": "Köln", "country": "DE"],
        ]
        if let status { claims["status"] = status }
        return try SDJWTIssuance(
            claims: claims,
            selectivelyDisclosable: [
                ClaimPath(names: "given_name"), ClaimPath(names: "address"), ClaimPath(names: "address", "locality"),
            ]
        ).issue(header: ["x5c": JWS.x5cHeader([issuerCertificate])], key: issuerKey)
    }

    private func importing(_ compact: String, anchors: [Certificate]? = nil) throws -> String {
        try store.importSDJWT(
            compact: compact, deviceKeyPEM: try holderKey.pkcs8PEM(), trustAnchors: anchors ?? [anchor], at: now)
    }

    @Test func importsListsAndShowsAnSDJWTVC() throws {
        let id = try importing(try issue())
        let summary = try #require(try store.list().first { $0.id == id })
        #expect(summary.format == "dc+sd-jwt")
        #expect(summary.docType == "urn:eudi:pid:1")
        #expect(summary.issuerSubject?.contains("Test PID Issuer") == true)
        #expect(summary.elements == ["address", "address.country", "address.locality", "given_name"])
        #expect(summary.isValid(at: now))
        #expect(!String(decoding: try JSONEncoder().encode(summary), as: UTF8.self).contains("Erika"))
        let hidden = try store.show(id: id)
        #expect(hidden.elements.allSatisfy { $0.value == nil })
        #expect(hidden.digestAlgorithm == "sha-256")
        let shown = try store.show(id: id, includeValues: true)
        #expect(shown.elements.first { $0.id == "address.locality" }?.value == "\"Köln\"")
        let stored = try #require(try store.sdJWTCredential(id: id))
        #expect(stored.key.publicKey == holderKey.publicKey)
        #expect(try store.keys().first?.credentials == [id])
    }

    /// `list` and presentation decide whether an SD-JWT VC row is whole with the same check: a
    /// damaged claim list or an unusable key is listed with its problem and not presented.
    @Test(arguments: ["claims = 'not json'", "key_id = 'eeeeeeeeeeeeeeee'"])
    func aDamagedRowIsListedDamagedAndNotPresented(damage: String) throws {
        let id = try importing(try issue())
        try SQLiteDatabase(path: store.path).execute(
            """
            INSERT INTO keys (id, secure_area, curve, public_key, key_blob, requires_passphrase, created_at)
            SELECT 'eeeeeeeeeeeeeeee', 'carrier-pigeon', curve, public_key, key_blob, requires_passphrase, created_at
            FROM keys LIMIT 1;
            UPDATE sd_jwt_credentials SET \(damage) WHERE id = '\(id)';
            """)
        let summary = try #require(try store.list().first { $0.id == id })
        var unreadable: [UnreadableRow] = []
        let presentable = try store.presentableSDJWTs(at: now) { unreadable.append($0) }
        #expect(presentable.isEmpty)
        #expect(unreadable.map(\.id) == [id])
        #expect(summary.problem != nil)
        #expect(summary.problem == unreadable.first?.description)
        #expect(summary.problem?.contains("not json") == false)
        #expect(summary.problem?.contains("carrier-pigeon") == false)
    }

    @Test func refusesWhatFailsACheckAndStoresNothing() throws {
        let good = try issue()
        let parts = good.split(separator: "~", omittingEmptySubsequences: false).map(String.init)
        let forged = Disclosure(salt: "c2FsdC1zYWx0LXNhbHQ", claimName: "given_name", value: "Mallory").encoded
        let cases: [(String, [Certificate]?, (WalletError) -> Bool)] = [
            (
                ([parts[0], forged] + parts[2...]).joined(separator: "~"), nil,
                {
                    if case .sdJWTRefused(.disclosureMismatch) = $0 { return true }
                    return false
                }
            ),
            (
                try issue(exp: -10), nil,
                {
                    if case .sdJWTRefused(.expired) = $0 { return true }
                    return false
                }
            ),
            (try issue(holder: try PrivateKey.generate(.p256).publicKey), nil, { $0 == .sdJWTKeyMismatch(keyID: nil) }),
            (
                good, [try AnnexD.iaca()],
                {
                    if case .sdJWTRefused(.issuerNotTrusted) = $0 { return true }
                    return false
                }
            ),
        ]
        for (compact, anchors, expected) in cases {
            #expect {
                _ = try importing(compact, anchors: anchors)
            } throws: { error in
                guard let error = error as? WalletError else { return false }
                return expected(error) && !error.description.contains("Erika")
            }
        }
        #expect(try store.list().isEmpty)
        #expect(try store.keys().isEmpty)
    }

    @Test func theSameSDJWTVCIsStoredOnceAndDeletedWithItsID() throws {
        let compact = try issue()
        let id = try importing(compact)
        #expect(throws: WalletError.alreadyStored(document: 1, id: id)) { _ = try importing(compact) }
        try store.delete(id: id)
        #expect(try store.list().isEmpty)
        #expect(try store.sdJWTCredential(id: id) == nil)
        #expect(throws: WalletError.unknownCredential(id: id)) { try store.delete(id: id) }
    }

    /// The status reference is kept beside the credential (for a later revocation check).
    @Test func keepsTheStatusReference() throws {
        let status: JSONValue = ["status_list": ["idx": 412, "uri": "https://pid-issuer.example/statuslists/1"]]
        let id = try importing(try issue(status: status))
        let db = try SQLiteDatabase(path: dir.file("wallet.sqlite"))
        let stored = try db.query("SELECT status FROM sd_jwt_credentials WHERE id = ?", [.text(id)]) { $0.text(0) }
        let text = try #require(stored.first ?? nil)
        #expect(try JSONValue(parsing: text) == status)
    }

    /// A file's text is taken as an SD-JWT VC only when it has the compact form.
    @Test func recognisesTheCompactFormOnly() throws {
        let compact = try issue()
        #expect(CredentialStore.sdJWTText(Array((compact + "\n").utf8)) == compact)
        #expect(CredentialStore.sdJWTText(AnnexD.issuerSigned) == nil)
        #expect(CredentialStore.sdJWTText(Array("a0~".utf8)) == nil)
    }

    // MARK: Received over OpenID4VCI

    static let source = IssuanceSource(issuer: "https://issuer.example", issuerName: "Example PID issuer")

    /// `count` keys made in the software area (not stored yet), as an issuance makes them.
    func newKeys(_ count: Int) throws -> [StoredKey] {
        try (0..<count).map { _ in try store.secureAreas.software.createKey(KeySettings()) }
    }

    @Test func aReceivedCopyFailingAnyCheckStoresNoneOfThem() throws {
        let keys = try newKeys(2)
        let good = try issue(holder: try keys[0].publicKey())
        let stranger = try PrivateKey.generate(.p256).publicKey
        let cases: [([String], String, [Certificate], (WalletError) -> Bool)] = [
            (
                [good, try issue(holder: stranger)], "urn:eudi:pid:1", [anchor],
                {
                    if case .sdJWTKeyMismatch = $0 { true } else { false }
                }
            ),
            (
                [good, try issue(holder: try keys[1].publicKey())], "urn:other", [anchor],
                {
                    if case .vctMismatch(1, "urn:other", "urn:eudi:pid:1") = $0 { true } else { false }
                }
            ),
            (
                [good, try issue(holder: try keys[1].publicKey())], "urn:eudi:pid:1", [],
                {
                    if case .sdJWTRefused(.issuerNotTrusted) = $0 { true } else { false }
                }
            ),
            (
                [good, good], "urn:eudi:pid:1", [anchor],
                {
                    if case .duplicateDocument(2, 1) = $0 { true } else { false }
                }
            ),
            (
                [good], "urn:eudi:pid:1", [anchor],
                {
                    if case .malformedDocument = $0 { true } else { false }
                }
            ),
        ]
        for (compacts, vct, anchors, expected) in cases {
            do {
                _ = try store.receiveSDJWT(
                    compacts, keys: keys, vct: vct, from: Self.source, trustAnchors: anchors, at: now)
                Issue.record("stored although a copy fails its checks")
            } catch {
                #expect(expected(error), "\(error)")
                #expect(!error.description.contains("Erika"))
            }
        }
        #expect(try store.list().isEmpty)
        #expect(try store.keys().isEmpty)
    }
}

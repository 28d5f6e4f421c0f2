import CBOR
import Foundation
import MdocCrypto
import Testing
import VICAL

/// The public VICALs of ../shared/vectors/trust-lists/vical (AAMVA, Austroads, RDW), verified
/// at a time inside their validity; IACA counts as that folder's README lists them.
@Suite struct PublicVICALTests {
    static let folder = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("../shared/vectors/trust-lists/vical").standardized

    static func signed(_ name: String) throws -> SignedVICAL {
        try SignedVICAL(bytes: [UInt8](Data(contentsOf: folder.appendingPathComponent(name))))
    }

    static func anchor(_ name: String) throws -> [Certificate] {
        try Certificate.parsePEM(String(contentsOf: folder.appendingPathComponent(name), encoding: .utf8))
    }

    static func date(_ text: String) -> Date { RFC3339.date(from: text)! }

    struct Case: Sendable, CustomTestStringConvertible {
        var file: String
        var anchor: String
        var at: String
        var provider: String
        var issueID: UInt64
        var iacas: Int
        var testDescription: String { file }
    }

    static let cases = [
        Case(
            file: "aamva-vical-2025-11-18-issue-227602.cbor", anchor: "aamva-dts-root-ca.pem",
            at: "2025-11-19T00:00:00Z", provider: "AAMVA", issueID: 227602, iacas: 14),
        Case(
            file: "aamva-vical-2025-08-05-issue-89782.cbor", anchor: "aamva-dts-root-ca.pem",
            at: "2025-08-06T00:00:00Z", provider: "AAMVA", issueID: 89782, iacas: 13),
        Case(
            file: "aamva-vical-2024-09-24-issue-616575.cbor", anchor: "aamva-dts-root-ca.pem",
            at: "2024-09-25T00:00:00Z", provider: "AAMVA", issueID: 616575, iacas: 3),
        Case(
            file: "austroads-preprod-vical-2024-12-17-issue-27.cbor", anchor: "austroads-preprod-dts-root-ca.pem",
            at: "2025-01-01T00:00:00Z", provider: "Austroads", issueID: 27, iacas: 40),
        Case(
            file: "austroads-preprod-vical-2024-09-19-issue-15.cbor", anchor: "austroads-preprod-dts-root-ca.pem",
            at: "2024-10-01T00:00:00Z", provider: "Austroads", issueID: 15, iacas: 35),
    ]

    @Test(arguments: cases) func verifiesAtATimeInsideItsValidity(_ c: Case) throws {
        let verified = try Self.signed(c.file).verify(anchors: Self.anchor(c.anchor), at: Self.date(c.at))
        #expect(verified.vical.vicalProvider.hasPrefix(c.provider))
        #expect(verified.vical.vicalIssueID == c.issueID)
        #expect(verified.vical.certificateInfos.count == c.iacas)
        // Every entry of these lists has a key we verify with (P-256/384/521, brainpool).
        #expect(verified.scopedAnchors.count == c.iacas)
        #expect(verified.entries.allSatisfy { $0.skipped == nil })
    }

    @Test func aamvaEntriesAreMDLOnlyAndKeepTheirCapitalisedExtensions() throws {
        let verified = try Self.signed("aamva-vical-2025-11-18-issue-227602.cbor")
            .verify(anchors: Self.anchor("aamva-dts-root-ca.pem"), at: Self.date("2025-11-19T00:00:00Z"))
        #expect(verified.scopedAnchors.allSatisfy { $0.docTypes == ["org.iso.18013.5.1.mDL"] })
        #expect(verified.vical.certificateInfos.contains { $0.hasExtensions })
        #expect(verified.source == "VICAL AAMVA 2025-11-18T18:38:12Z")
    }

    @Test func theExpiredAAMVASignerIsRefusedToday() throws {
        // The signer expired on 2026-04-18: only a pinned time inside its validity verifies.
        #expect(throws: VICALError.self) {
            try Self.signed("aamva-vical-2025-11-18-issue-227602.cbor")
                .verify(anchors: Self.anchor("aamva-dts-root-ca.pem"), at: Self.date("2026-05-01T00:00:00Z"))
        }
    }

    @Test func aamvaPastNextUpdateIsRefused() throws {
        let error = #expect(throws: VICALError.self) {
            try Self.signed("aamva-vical-2024-09-24-issue-616575.cbor")
                .verify(anchors: Self.anchor("aamva-dts-root-ca.pem"), at: Self.date("2024-09-26T00:00:00Z"))
        }
        #expect(error == .expired(nextUpdate: "2024-09-25T17:37:31Z"))
    }

    @Test func aListSignedUnderAnotherRootIsUntrusted() throws {
        let error = #expect(throws: VICALError.self) {
            try Self.signed("austroads-preprod-vical-2024-12-17-issue-27.cbor")
                .verify(anchors: Self.anchor("aamva-dts-root-ca.pem"), at: Self.date("2025-01-01T00:00:00Z"))
        }
        guard case .untrustedSigner = error else {
            Issue.record("expected untrustedSigner, got \(String(describing: error))")
            return
        }
    }

    @Test func rdwVerifiesItsSignatureOnlyAndSkipsItsRSAEntry() throws {
        let rdw = try Self.signed("rdw-test-vical-2025-02-25-issue-5.cbor")
        try rdw.checkSignature()
        #expect(rdw.vical.certificateInfos.count == 45)
        let entries = VerifiedVICAL.entries(of: rdw.vical)
        #expect(entries.filter { $0.skipped == "RSA key" }.count == 1)
        #expect(entries.filter { $0.skipped == nil }.count == 44)
        // Its root is nowhere: no anchor makes it trusted.
        #expect(throws: VICALError.self) {
            try rdw.verify(
                anchors: Self.anchor("aamva-dts-root-ca.pem") + Self.anchor("austroads-preprod-dts-root-ca.pem"),
                at: Self.date("2025-06-01T00:00:00Z"))
        }
    }
}

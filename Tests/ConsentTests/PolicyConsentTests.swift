import Consent
import ConsentPolicy
import Foundation
import MdocCrypto
import TestSupport
import Testing

/// Kiosk policy files: first matching rule wins, no match declines.
struct PolicyConsentTests {
    static let mDL = "org.iso.18013.5.1.mDL"
    static let ns = "org.iso.18013.5.1"
    static let dir = URL(fileURLWithPath: NSTemporaryDirectory())

    static func request(_ auth: RequesterAuthentication, docType: String = mDL, chain: [[UInt8]] = []) -> ConsentRequest
    {
        let requester = Requester(displayName: "reader", authentication: auth, certificateChain: chain)
        let elements =
            ["family_name", "age_over_18", "portrait"].map {
                RequestedElement(ElementID(ns, $0), intentToRetain: false, available: true)
            } + [RequestedElement(ElementID(ns, "age_over_21"), intentToRetain: false, available: false)]
        return ConsentRequest(
            channel: .ble, requester: requester,
            documents: [DocumentRequest(docType: docType, credentialID: "c1", elements: elements, requester: requester)]
        )
    }

    static let policy = """
        # Shop kiosk: trusted readers get name and age; anyone gets age.
        [[rule]]
        reader = "trusted"
        doctype = "org.iso.18013.5.1.mDL"
        allow = ["org.iso.18013.5.1:family_name", "org.iso.18013.5.1:age_over_18",
                 "org.iso.18013.5.1:age_over_21"]   # not held: never sent

        [[rule]]
        reader = 'any'
        doctype = "org.iso.18013.5.1.mDL"
        allow = [ "org.iso.18013.5.1:age_over_18", ]
        """

    @Test func theFirstMatchingRuleDecides() throws {
        let p = try PolicyConsent(text: Self.policy, baseDirectory: Self.dir)
        #expect(p.rules.count == 2)
        let trusted = p.decideNow(Self.request(.trusted(anchor: "CN=root")))
        #expect(
            trusted.approved(for: Self.mDL) == [ElementID(Self.ns, "family_name"), ElementID(Self.ns, "age_over_18")])
        let anyone = p.decideNow(Self.request(.unauthenticated))
        #expect(anyone.approved(for: Self.mDL) == [ElementID(Self.ns, "age_over_18")])
    }

    @Test func noMatchingRuleDeclines() throws {
        let p = try PolicyConsent(text: Self.policy, baseDirectory: Self.dir)
        #expect(p.decideNow(Self.request(.trusted(anchor: "x"), docType: "org.example.other")) == .decline)
        let empty = try PolicyConsent(text: "# nothing allowed\n", baseDirectory: Self.dir)
        #expect(empty.decideNow(Self.request(.trusted(anchor: "x"))) == .decline)
    }

    @Test func starAllowsEverythingHeldAndAnyDocType() throws {
        let p = try PolicyConsent(
            text: "[[rule]]\nreader = \"any\"\ndoctype = \"*\"\nallow = [\"*\"]\n", baseDirectory: Self.dir)
        let d = p.decideNow(Self.request(.unauthenticated, docType: "org.example.x"))
        #expect(d.approved(for: "org.example.x").count == 3)
    }

    @Test func anAnchorRuleMatchesOnlyReadersChainingToThatAnchor() throws {
        let root = try Certificate(der: Vectors.annexD("ReaderRoot_certificate"))
        let leaf = Vectors.annexD("Reader_certificate")
        let anchorPath = Self.dir.appendingPathComponent("policy-anchor-\(UUID().uuidString).pem")
        try root.pem.write(to: anchorPath, atomically: true, encoding: .utf8)
        defer { try? FileManager.default.removeItem(at: anchorPath) }
        let text = "[[rule]]\nreader = \"anchor:\(anchorPath.lastPathComponent)\"\ndoctype = \"*\"\nallow = [\"*\"]\n"
        // The Annex D reader certificate was valid in 2022.
        let p = try PolicyConsent(text: text, baseDirectory: Self.dir, now: { RFC3339Date.june2022 })
        #expect(p.decideNow(Self.request(.untrusted(reason: "not configured"), chain: [leaf])) != .decline)
        #expect(p.decideNow(Self.request(.unauthenticated, chain: [])) == .decline)
        #expect(p.decideNow(Self.request(.invalid(reason: "bad signature"), chain: [leaf])) == .decline)
        let iaca = Vectors.annexD("DS_certificate")
        #expect(p.decideNow(Self.request(.untrusted(reason: "x"), chain: [iaca])) == .decline)
    }

    @Test func badFilesAreRefusedWithTheLine() {
        let cases: [(String, String)] = [
            ("[[rule]]\nreader = \"sometimes\"\ndoctype = \"x\"\nallow = [\"*\"]\n", "line 2"),
            ("[[rule]]\nreader = \"any\"\nallow = [\"*\"]\n", "missing doctype"),
            ("[[rule]]\nreader = \"any\"\ndoctype = \"x\"\nallow = [\":family_name\"]\n", "namespace:element"),
            ("[[rule]]\nreader = \"any\"\ndoctype = \"x\"\nallow = [\"\"]\n", "empty"),
            ("[[rule]]\nreader = \"any\"\ndoctype = \"x\"\nallow = \"*\"\n", "array"),
            ("reader = \"any\"\n", "outside"),
            ("[rule]\n", "[[rule]]"),
            // Syntax errors come from the TOML reader, with their line and column.
            ("[[rule]]\nreader = \"any\nx", "line 2: a string is not closed (column 14)"),
            ("[[rule]]\ncolour = \"blue\"\n", "unknown key"),
            ("[[rule]]\nreader = \"any\" extra\n", "line 2: expected the end of the line, found 'e' (column 16)"),
            ("[[rule]]\nreader = \"anchor:/nonexistent.pem\"\ndoctype = \"x\"\nallow = [\"*\"]\n", "cannot read"),
        ]
        for (text, expected) in cases {
            do {
                _ = try PolicyConsent(text: text, baseDirectory: Self.dir)
                Issue.record("accepted: \(text)")
            } catch {
                #expect(error.description.contains(expected), "\(error.description)")
            }
        }
    }
}

enum RFC3339Date {
    static let june2022 = ISO8601DateFormatter().date(from: "2022-06-01T00:00:00Z")!
}

/// ElementID's order is its description's ("namespace:element"), even where one namespace is
/// a prefix of another.
struct ElementIDOrderTests {
    @Test func ordersAsTheDescriptionWouldWithoutBuildingIt() {
        let parts = ["", "a", "ab", "a.b", "a:b", "b", "org.iso.18013.5.1", "org.iso.18013.5.1.aamva", "Z", "é", "z1"]
        let ids = parts.flatMap { ns in parts.map { ElementID(ns, $0) } }
        for a in ids {
            for b in ids {
                #expect((a < b) == (a.description < b.description), "\(a) < \(b)")
            }
        }
    }
}

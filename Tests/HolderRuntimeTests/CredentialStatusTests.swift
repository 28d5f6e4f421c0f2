import BLETestSupport
import Consent
import Foundation
import MdocCrypto
import MdocIssuer
import Presentation
import Testing
import TokenStatusList
import Wallet

@testable import HolderRuntime

/// The holder and its credentials' status: a refresh records each answer (and keeps the last
/// one when a list cannot be read), and a credential whose last known status is INVALID or
/// SUSPENDED is not presented: a reader asking for it gets nothing, the history says why.
struct HolderCredentialStatusTests {
    /// A status list double: the answers by credential index; an index it does not know is
    /// unknown. Records what it was asked.
    final class Lists: CredentialStatusChecking {
        let answers: [UInt64: CredentialStatus]
        let asked = Lines()
        init(_ answers: [UInt64: CredentialStatus]) { self.answers = answers }

        func check(_ reference: StatusReference, format: StatusListFormat, trustAnchors: [Certificate], at time: Date)
            async -> StatusCheck
        {
            asked.append("\(reference.uri) \(reference.index) \(format) \(trustAnchors.count)")
            guard let status = answers[reference.index] else { return .unknown(reason: "the list cannot be fetched") }
            return .known(status, checkedAt: time)
        }
    }

    /// The test mDL of Fixtures/ in a fresh store (it carries no status reference: its status
    /// is set directly).
    static func store() throws -> (CredentialStore, String) {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent(UUID().uuidString)
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let store = try CredentialStore(
            path: try ParityScenario.released.makeStoreFile(in: directory), secureAreas: .inMemory)
        return (store, try #require(try store.list().first?.id))
    }

    /// An mDL issued under `pki` with the MSO status reference `index`; its ID.
    static func importMDL(into store: CredentialStore, pki: TestPKI, index: UInt64) throws -> String {
        let key = try PrivateKey.generate(.p256)
        let issued = try MdocIssuer.issue(
            docType: ParityScenario.mDL, nameSpaces: [(ParityScenario.nameSpace, [("family_name", .text("Doe"))])],
            deviceKey: key.publicKey, documentSignerKey: pki.documentSignerKey,
            documentSignerChain: [pki.documentSigner], validFrom: Date().addingTimeInterval(-60),
            validUntil: Date().addingTimeInterval(86400),
            status: StatusReference(index: index, uri: "https://issuer.example/list").cbor)
        return try store.import(
            fileBytes: issued.cbor.encoded(), deviceKeyPEM: try key.pkcs8PEM(), trustAnchors: [pki.iaca])[0]
    }

    @Test func aRevokedMDLIsNotReleasedAndTheHistorySaysWhy() async throws {
        let (store, id) = try Self.store()
        try store.setLastStatus(id: id, LastKnownStatus(.invalid, checkedAt: Date()))
        let lines = Lines()
        let holder = Holder(settings: try AdapterParityTests.settings, store: store) { lines.append($0.text) }
        let wire = InMemoryGattWire()
        let engagement = EngagementBox()
        async let outcome = holder.presentProximity(
            over: ProximityLinks(server: wire.server, client: wire.client),
            consent: try ParityScenario.released.policy, showEngagement: { engagement.set($0.uri) })
        try await ParityScenario.released.read(over: wire, engagementURI: try await engagement.wait())
        let result = try await outcome
        #expect(result.result.records.allSatisfy { $0.elementsSent.isEmpty })
        let entry = try #require(try store.history().first)
        #expect(entry.decision.name == "failed")
        #expect(entry.decision.reason?.contains("credential \(id) (\(ParityScenario.mDL)) is not presented") == true)
        #expect(entry.decision.reason?.contains("marks it invalid") == true)
        #expect(lines.all.contains { $0.contains("credential \(id)") && $0.contains("invalid") })
    }

    @Test func aValidMDLIsStillReleased() async throws {
        let (store, id) = try Self.store()
        try store.setLastStatus(id: id, LastKnownStatus(.valid, checkedAt: Date()))
        let holder = Holder(settings: try AdapterParityTests.settings, store: store) { _ in }
        #expect(try holder.selectCredentials { _ in }.credentials.map(\.id) == [id])
        #expect(try holder.selectCredentials { _ in }.withheld.isEmpty)
    }

    @Test func theConsentPromptNamesWithheldCredentials() async throws {
        let status = LastKnownStatus(.suspended, checkedAt: Date(timeIntervalSince1970: 0))
        let selection = CredentialSelection(
            credentials: [],
            withheld: [
                WithheldCredential(id: "0123456789abcdef", format: "mso_mdoc", docType: "a\u{1b}[2Jb", status: status)
            ])
        let seen = Lines()
        struct Recorder: ConsentPrompt {
            let seen: Lines
            func decide(_ request: ConsentRequest) async -> ConsentDecision {
                seen.append(request.warning ?? "")
                return .decline
            }
        }
        _ = await StatusNoticeConsent(inner: Recorder(seen: seen), selection: selection).decide(
            ConsentRequest(
                channel: .ble, requester: Requester(displayName: "r", authentication: .unauthenticated), documents: [],
                warning: "The reader is not trusted."))
        let warning = try #require(seen.all.first)
        #expect(warning.hasPrefix("The reader is not trusted. Not offered: credential 0123456789abcdef"))
        #expect(warning.contains("marks it suspended (checked at 1970-01-01T00:00:00Z)"))
        #expect(!warning.contains("\u{1b}"))
    }

    @Test func aRefreshRecordsAnswersAndKeepsTheLastOnWhenAListIsUnreadable() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent(UUID().uuidString)
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let store = try CredentialStore(path: directory.appendingPathComponent("w.sqlite").path, secureAreas: .inMemory)
        let pki = try TestPKI.generate()
        let revoked = try Self.importMDL(into: store, pki: pki, index: 1)
        let unreadable = try Self.importMDL(into: store, pki: pki, index: 2)
        try store.setLastStatus(id: unreadable, LastKnownStatus(.valid, checkedAt: Date(timeIntervalSince1970: 100)))
        let lists = Lists([1: .invalid])
        let holder = Holder(settings: HolderSettings(issuerTrust: [pki.iaca]), store: store) { _ in }
        let refreshed = try await holder.refreshStatus(checker: lists)
        #expect(Set(refreshed.map(\.target.id)) == [revoked, unreadable])
        #expect(lists.asked.all.allSatisfy { $0.hasSuffix(" cwt 1") })
        let byID = Dictionary(uniqueKeysWithValues: try store.list().map { ($0.id, $0.lastStatus) })
        #expect(byID[revoked]??.status == .invalid)
        #expect(byID[unreadable]??.status == .valid)
        #expect(byID[unreadable]??.checkedAt == Date(timeIntervalSince1970: 100))
        let line = try #require(refreshed.first { $0.target.id == unreadable }?.line)
        #expect(
            line.contains("unknown (the list cannot be fetched; last known valid at 1970-01-01T00:01:40Z)"), "\(line)")
        #expect(try store.presentableCredentials().map(\.id) == [unreadable])
    }
}

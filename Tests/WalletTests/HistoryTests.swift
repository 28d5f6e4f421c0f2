import Consent
import Foundation
import Testing

@testable import Wallet

/// The presentation history: who, when, which elements, what was decided; never values.
struct HistoryTests {
    @Test func recordsAndReadsBackEntriesInTimeOrder() throws {
        let dir = try TemporaryDirectory()
        let store = try dir.store()
        let t0 = Date(timeIntervalSince1970: 1_700_000_000)
        let reader = Requester(
            displayName: "Utopia Police", identifier: "CN=reader,C=US", authentication: .trusted(anchor: "CN=root"))
        let entries = [
            HistoryEntry(
                time: t0.addingTimeInterval(10), channel: .online, requesterName: "Verifier", requesterIdentifier: nil,
                authentication: RequesterAuthentication.unauthenticated.summary, docType: "org.iso.18013.5.1.mDL",
                elementsSent: [], decision: .declined),
            HistoryEntry(
                time: t0, channel: .ble, requester: reader, docType: "org.iso.18013.5.1.mDL",
                elementsSent: [
                    ElementID("org.iso.18013.5.1", "family_name"), ElementID("org.iso.18013.5.1", "age_over_21"),
                ],
                decision: .sent),
            HistoryEntry(
                time: t0.addingTimeInterval(20), channel: .ble, requester: reader, docType: "org.iso.18013.5.1.mDL",
                elementsSent: [], decision: .failed(reason: "the reader closed the connection")),
        ]
        for entry in entries { try store.record(entry) }
        let history = try store.history()
        #expect(history == [entries[1], entries[0], entries[2]])
        #expect(history[0].requesterIdentifier == "CN=reader,C=US")
        #expect(history[0].authentication == "trusted by CN=root")
        #expect(history[0].elementsSent == ["org.iso.18013.5.1:family_name", "org.iso.18013.5.1:age_over_21"])
        #expect(history[2].decision == .failed(reason: "the reader closed the connection"))
    }

    @Test func entriesEncodeToJSONWithAFlatDecision() throws {
        let entry = HistoryEntry(
            time: Date(timeIntervalSince1970: 0), channel: .ble, requesterName: "R", requesterIdentifier: nil,
            authentication: "not authenticated", docType: "d", elementsSent: ["ns:e"], decision: .failed(reason: "x"))
        let encoder = JSONEncoder()
        encoder.outputFormatting = .sortedKeys
        encoder.dateEncodingStrategy = .iso8601
        let json = String(decoding: try encoder.encode(entry), as: UTF8.self)
        #expect(json.contains("\"decision\":\"failed\""))
        #expect(json.contains("\"failureReason\":\"x\""))
        #expect(json.contains("\"time\":\"1970-01-01T00:00:00Z\""))
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .iso8601
        #expect(try decoder.decode(HistoryEntry.self, from: Data(json.utf8)) == entry)
    }
}

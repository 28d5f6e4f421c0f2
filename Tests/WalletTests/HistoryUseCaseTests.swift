import Consent
import Foundation
import Presentation
import Testing

@testable import Wallet

/// A second-edition request's use case reaches the history with the presentation that answered
/// it, and a presentation without one records none.
struct HistoryUseCaseTests {
    @Test func theUseCaseAPresentationAnsweredIsReadBackFromTheHistory() throws {
        let dir = try TemporaryDirectory()
        let store = try dir.store()
        let reader = Requester(displayName: "Shop", authentication: .unauthenticated)
        let mDL = "org.iso.18013.5.1.mDL"
        try store.record(
            [
                PresentationRecord(
                    requester: reader, docType: mDL, elementsSent: [ElementID("org.iso.18013.5.1", "age_over_18")],
                    outcome: .sent, useCase: "use case 1 (mandatory), document set 2"),
                PresentationRecord(requester: reader, docType: mDL, elementsSent: [], outcome: .declined),
            ], channel: .ble)
        let history = try store.history()
        #expect(history.map(\.useCase) == ["use case 1 (mandatory), document set 2", nil])
        let json = String(decoding: try JSONEncoder().encode(history[0]), as: UTF8.self)
        #expect(json.contains("\"useCase\":\"use case 1 (mandatory), document set 2\""))
    }
}

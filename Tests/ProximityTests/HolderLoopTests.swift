import BLETestSupport
import BLETransport
import Consent
import Foundation
import Presentation
import Testing

@testable import Proximity

/// ``HolderLoop`` alone, without I/O: event sequences in (the reader's real messages, the
/// channel's events, consent answers, a clock that moves only when told), actions out.
struct HolderLoopTests {
    typealias Harness = HolderLoopHarness

    @Test func aRequestIsAnsweredAndTheReadersStatus20EndsTheSession() throws {
        var h = try Harness(try TestMDL())
        h.gattReaderStarted()
        let request = try h.readerRequests()
        #expect(h.feed(.decided(.approveAll(request))) == ["send", "report responded"])
        guard case .response(let verified, _, let ended) = try h.reader.receive(try #require(h.sent.last)) else {
            Issue.record("no response")
            return
        }
        #expect(verified.isValid)
        #expect(!ended)
        #expect(h.readerSends(h.reader.termination()).isEmpty)
        #expect(h.loop.isFinished)
        let result = h.loop.result
        #expect(result.holderEnd == .readerEnded)
        #expect(result.responsesSent == 1)
        #expect(result.records.map(\.outcome) == [.sent])
        #expect(result.mode == .peripheralServer)
        #expect(result.isSuccess)
        // The reader ended it: nothing more is said, the link is let go.
        #expect(!h.actions.contains { Harness.name($0) == "close" })
    }

    @Test func aDeclineSendsNoElementsAndTheReaderMayAskAgain() throws {
        var h = try Harness(try TestMDL())
        h.gattReaderStarted()
        _ = try h.readerRequests()
        #expect(h.feed(.decided(.decline)) == ["send", "report responded"])
        guard case .response(let verified, _, _) = try h.reader.receive(try #require(h.sent.last)) else {
            Issue.record("no response")
            return
        }
        #expect(verified.documents.isEmpty)
        #expect(h.loop.result.records.map(\.outcome) == [.declined])
        #expect(!h.loop.isFinished)
        #expect(h.feed(.channel(.closed(.disconnectedAfterResponse), generation: h.loop.generation)).isEmpty)
        #expect(h.loop.isFinished)
        #expect(h.loop.result.transportEnd == .disconnectedAfterResponse)
    }

    @Test func anUnansweredConsentDeclinesEndsAndClosesTheChannel() throws {
        var h = try Harness(try TestMDL()) { $0.consentTimeout = .seconds(60) }
        h.gattReaderStarted()
        _ = try h.readerRequests()
        #expect(h.feed(.tick(outputWaitingSince: nil), after: .seconds(59)).isEmpty)
        let ending = h.feed(.tick(outputWaitingSince: nil), after: .seconds(2))
        #expect(ending.first == "send")
        #expect(ending.last == "close")
        #expect(h.loop.result.holderEnd == .consentTimeout)
        #expect(!h.loop.isFinished)
        // A late answer changes nothing.
        let began = h.now.instant
        #expect(h.feed(.decided(.decline)).isEmpty)
        #expect(h.feed(.closeFinished(.localEnded, began: began), after: .milliseconds(20)).isEmpty)
        #expect(h.loop.isFinished)
        #expect(h.loop.result.transportEnd == .localEnded)
        #expect(h.loop.result.timedOut == nil)
    }

    @Test func aReaderThatDisconnectsWhileTheUserDecidesEndsTheSession() throws {
        var h = try Harness(try TestMDL())
        h.gattReaderStarted()
        let request = try h.readerRequests()
        #expect(h.feed(.channel(.closed(.disconnected), generation: h.loop.generation)).isEmpty)
        #expect(h.loop.isFinished)
        #expect(h.feed(.decided(.approveAll(request))).isEmpty)
        let result = h.loop.result
        #expect(result.transportEnd == .disconnected)
        #expect(result.holderEnd == .transportClosed)
        #expect(result.responsesSent == 0)
        #expect(!result.isSuccess)
    }

    @Test func anL2CAPChannelOpenedBeforeTheGATTStartReplacesIt() throws {
        var h = try Harness(try TestMDL())
        #expect(h.feed(.readerArrived(.peripheralServer)).isEmpty)
        #expect(h.feed(.channelOpened(overL2CAP: false)).isEmpty)
        let gatt = h.loop.generation
        #expect(h.feed(.l2capOffered(gattStarted: false)) == ["acceptL2CAP"])
        #expect(h.feed(.channelOpened(overL2CAP: true)) == ["report readerConnected"])
        #expect(h.loop.result.overL2CAP)
        // The GATT channel's events no longer count.
        #expect(h.feed(.started(generation: gatt)).isEmpty)
        #expect(h.feed(.channel(.closed(.disconnected), generation: gatt)).isEmpty)
        #expect(!h.loop.isFinished)
        // A second L2CAP channel is refused.
        #expect(h.feed(.l2capOffered(gattStarted: false)) == ["refuseL2CAP"])
        let request = try h.readerRequests()
        #expect(h.feed(.decided(.approveAll(request))) == ["send", "report responded"])
        #expect(h.feed(.channel(.closed(.peerEnded), generation: h.loop.generation)).isEmpty)
        #expect(h.loop.result.transportEnd == .peerEnded)
        #expect(h.loop.result.isSuccess)
    }

    @Test func anL2CAPChannelAfterTheGATTStartIsRefused() throws {
        var h = try Harness(try TestMDL())
        h.gattReaderStarted()
        #expect(h.feed(.l2capOffered(gattStarted: true)) == ["refuseL2CAP"])
        #expect(!h.loop.result.overL2CAP)
    }

    @Test func outputThePeerDoesNotTakeForTheDrainBoundDropsTheLink() throws {
        var h = try Harness(
            try TestMDL(),
            timeouts: ProximityTimeouts(firstRequest: .seconds(5), session: .seconds(60), drain: .seconds(1)))
        h.gattReaderStarted()
        let request = try h.readerRequests()
        h.feed(.decided(.approveAll(request)))
        let queuedAt = h.now.instant
        #expect(h.feed(.tick(outputWaitingSince: queuedAt), after: .milliseconds(500)).isEmpty)
        #expect(h.feed(.tick(outputWaitingSince: queuedAt), after: .milliseconds(600)) == ["drop"])
        #expect(h.loop.isFinished)
        let result = h.loop.result
        #expect(result.timedOut == .drain)
        #expect(result.transportEnd == .disconnected)
        #expect(!result.isSuccess)
    }

    @Test func endingWhileOutputIsQueuedPastTheDrainBoundIsADrainTimeout() throws {
        var h = try Harness(
            try TestMDL(),
            timeouts: ProximityTimeouts(firstRequest: .seconds(5), session: .seconds(60), drain: .seconds(1))
        ) { $0.consentTimeout = .seconds(2) }
        h.gattReaderStarted()
        _ = try h.readerRequests()
        let ending = h.feed(.tick(outputWaitingSince: nil), after: .seconds(3))
        #expect(ending.last == "close")
        // The channel's close waited out its drain bound and dropped the link.
        let began = h.now.instant
        #expect(h.feed(.closeFinished(.disconnected, began: began), after: .seconds(1)).isEmpty)
        #expect(h.loop.isFinished)
        #expect(h.loop.result.timedOut == .drain)
        #expect(h.loop.result.transportEnd == .disconnected)
    }

    @Test func aReaderThatSaysNothingMeetsTheFirstRequestBound() throws {
        var h = try Harness(
            try TestMDL(), timeouts: ProximityTimeouts(firstRequest: .seconds(30), session: .seconds(300)))
        h.gattReaderStarted()
        #expect(h.feed(.tick(outputWaitingSince: nil), after: .seconds(29)).isEmpty)
        // No session keys yet: nothing to send, the channel closes.
        #expect(h.feed(.tick(outputWaitingSince: nil), after: .seconds(2)) == ["close"])
        #expect(h.loop.phase != .connected)
        #expect(h.feed(.tick(outputWaitingSince: nil), after: .milliseconds(10)).isEmpty)
        #expect(h.feed(.closeFinished(.localEnded, began: h.now.instant)).isEmpty)
        #expect(h.loop.result.timedOut == .firstRequest)
        #expect(h.loop.isFinished)
    }

    @Test func aBusyReaderMeetsTheSessionBound() throws {
        var h = try Harness(
            try TestMDL(), timeouts: ProximityTimeouts(firstRequest: .seconds(30), session: .seconds(60)))
        h.gattReaderStarted()
        let request = try h.readerRequests()
        h.feed(.decided(.approveAll(request)))
        #expect(h.feed(.tick(outputWaitingSince: nil), after: .seconds(59)).isEmpty)
        // Status 20 goes out, then the channel closes (State 0x02 after it on GATT).
        #expect(h.feed(.tick(outputWaitingSince: nil), after: .seconds(2)) == ["send", "close"])
        guard case .ended(let status) = try h.reader.receive(try #require(h.sent.last)) else {
            Issue.record("no termination")
            return
        }
        #expect(status == 20)
        #expect(h.loop.result.timedOut == .session)
        #expect(h.loop.result.holderEnd == .holderEnded)
    }

    @Test func theEnginesIdleTimeoutEndsTheSession() throws {
        var h = try Harness(try TestMDL()) { $0.sessionIdleTimeout = .seconds(10) }
        h.gattReaderStarted()
        let request = try h.readerRequests()
        h.feed(.decided(.approveAll(request)))
        #expect(h.feed(.tick(outputWaitingSince: nil), after: .seconds(9)).isEmpty)
        #expect(h.feed(.tick(outputWaitingSince: nil), after: .seconds(2)) == ["send", "close"])
        #expect(h.loop.result.holderEnd == .idleTimeout)
        #expect(h.loop.result.timedOut == nil)
    }

    @Test func aSendThatFailsEndsTheSessionAsADisconnect() throws {
        var h = try Harness(try TestMDL())
        h.gattReaderStarted()
        let request = try h.readerRequests()
        h.feed(.decided(.approveAll(request)))
        #expect(h.feed(.sendFailed).isEmpty)
        #expect(h.loop.isFinished)
        #expect(h.loop.result.transportEnd == .disconnected)
    }

    /// Seeded sequences: the same exchange with clock ticks, repeated starts and stale
    /// channel events strewn in at random. Whatever the interleaving, the reader is told
    /// connected once and before its request, exactly one response goes out, and the
    /// session ends as the reader asked.
    @Test(arguments: 0..<24 as Range<UInt64>)
    func noiseBetweenTheStepsChangesNothing(seed: UInt64) throws {
        var random = SeededGenerator(seed: seed)
        var h = try Harness(try TestMDL())
        func noise(_ h: inout Harness) {
            for _ in 0..<Int.random(in: 0...4, using: &random) {
                switch Int.random(in: 0...3, using: &random) {
                case 0:
                    h.feed(
                        .tick(outputWaitingSince: nil), after: .milliseconds(Int64.random(in: 1...900, using: &random)))
                case 1: h.feed(.started(generation: h.loop.generation))
                case 2: h.feed(.channel(.closed(.disconnected), generation: h.loop.generation + 1))
                default: h.feed(.l2capOffered(gattStarted: true))
                }
            }
        }
        h.feed(.advertising)
        h.feed(.readerArrived(.peripheralServer))
        h.feed(.channelOpened(overL2CAP: false))
        noise(&h)
        let request = try h.readerRequests()
        noise(&h)
        h.feed(.decided(.approveAll(request)))
        noise(&h)
        h.readerSends(h.reader.termination())
        let names = h.actions.map(Harness.name)
        #expect(names.filter { $0 == "report readerConnected" }.count == 1)
        #expect(names.firstIndex(of: "report readerConnected")! < names.firstIndex(of: "report requestReceived")!)
        #expect(h.sent.count == 1)
        #expect(h.loop.isFinished)
        #expect(h.loop.result.holderEnd == .readerEnded)
        #expect(h.loop.result.isSuccess)
    }
}

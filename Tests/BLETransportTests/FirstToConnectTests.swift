import BLETransport
import Synchronization
import Testing

/// ``FirstToConnect``: the first way to bring a connection wins, the others are let go.
struct FirstToConnectTests {
    final class Log: Sendable {
        let entries = Mutex<[String]>([])
        func add(_ entry: String) { entries.withLock { $0.append(entry) } }
        var all: [String] { entries.withLock { $0 } }
    }

    static func contender(_ name: String, after delay: Duration?, log: Log) -> FirstToConnect.Contender<String> {
        FirstToConnect.Contender(
            connect: {
                guard let delay else { return nil }
                try? await Task.sleep(for: delay)
                return name
            },
            abandon: { log.add("abandoned \(name)") })
    }

    @Test func theFirstToConnectWinsAndTheOthersAreAbandoned() async {
        let log = Log()
        let winner = await FirstToConnect.race(
            [
                Self.contender("gatt", after: .seconds(5), log: log),
                Self.contender("l2cap", after: .milliseconds(10), log: log),
            ], timeout: .seconds(10))
        #expect(winner?.index == 1 && winner?.connection == "l2cap")
        #expect(log.all == ["abandoned gatt"])
    }

    @Test func aWayThatGivesUpLeavesTheRaceToTheOthers() async {
        let log = Log()
        let winner = await FirstToConnect.race(
            [Self.contender("central", after: nil, log: log), Self.contender("peripheral", after: .zero, log: log)],
            timeout: nil)
        #expect(winner?.connection == "peripheral")
    }

    @Test func nobodyWithinTheTimeoutAbandonsEveryWay() async {
        let log = Log()
        let winner = await FirstToConnect.race(
            [Self.contender("a", after: .seconds(5), log: log), Self.contender("b", after: nil, log: log)],
            timeout: .milliseconds(50))
        #expect(winner == nil)
        #expect(log.all.sorted() == ["abandoned a", "abandoned b"])
    }

    @Test func aLoserThatConnectsAfterTheRaceIsDiscarded() async throws {
        let log = Log()
        let late = FirstToConnect.Contender<String>(connect: {
            // Ignores cancellation, as an accept() blocked in the kernel would.
            let deadline = ContinuousClock.now.advanced(by: .milliseconds(100))
            while ContinuousClock.now < deadline { await Task.yield() }
            return "late"
        })
        let winner = await FirstToConnect.race(
            [Self.contender("early", after: .zero, log: log), late], timeout: nil,
            discard: { log.add("discarded \($0)") })
        #expect(winner?.connection == "early")
        for _ in 0..<100 where !log.all.contains("discarded late") { try await Task.sleep(for: .milliseconds(10)) }
        #expect(log.all.contains("discarded late"))
    }
}

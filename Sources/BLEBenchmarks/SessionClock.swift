// When each step of one holder session happened, seen from the reader, and who was on the
// CPU in each step (CPUSnapshot at every step's start and end).
import Foundation
import Synchronization

/// When each step of one session happened (the first time it happened), with a CPU snapshot
/// at every mark.
final class SessionClock: Sendable {
    enum Mark: String, Sendable {
        /// The reader's GATT connection is up (services resolved).
        case connected
        /// The reader's first write of the request begins (a Client2Server chunk, or the
        /// frame on the L2CAP channel).
        case requestStart
        /// The reader's last write of the request returned (the link took it).
        case requestWritten
        case firstResponseByte, responseReceived
    }

    /// The processes read at each mark.
    struct Watched: Sendable {
        var holder: Int32
        var reader: Int32
        var bluetoothd: Int32?
        var all: [Int32] { [holder, reader] + (bluetoothd.map { [$0] } ?? []) }
    }

    /// The wall time and the CPU of each party in one step.
    struct Step: Sendable {
        var wall: Double
        var holder: Double?
        var reader: Double?
        var bluetoothd: Double?
        /// The whole machine, every CPU summed (the kernel's work included).
        var machine: Double?
    }

    let watched: Watched
    private let marks = Mutex<[Mark: (at: ContinuousClock.Instant, cpu: CPUSnapshot?)]>([:])
    private let responseSize = Mutex(0)
    /// How long each CPU snapshot took (on the reader's CPU, during the session).
    private let snapshotCosts = Mutex<[Double]>([])
    private let snapshotTasks = Mutex<[Task<Void, Never>]>([])

    init(watched: Watched) { self.watched = watched }

    /// Notes `mark` the first time it happens; its CPU snapshot is taken in a task of its
    /// own, off the session's path (``settled()`` waits for them), but for the response
    /// received: that one at once, while the holder is sure to be up (it waits for the
    /// reader's end of the session), and nothing measured follows it.
    func mark(_ mark: Mark) {
        let now = ContinuousClock.now
        let first = marks.withLock { marks in
            guard marks[mark] == nil else { return false }
            marks[mark] = (now, nil)
            return true
        }
        guard first else { return }
        if mark == .responseReceived {
            snapshot(mark)
            return
        }
        let task = Task.detached { [self] in snapshot(mark) }
        snapshotTasks.withLock { $0.append(task) }
    }

    private func snapshot(_ mark: Mark) {
        let began = ContinuousClock.now
        let snapshot = CPUSnapshot.take(watched.all)
        let cost = BLEBenchmarks.seconds(ContinuousClock.now - began)
        marks.withLock { $0[mark]?.cpu = snapshot }
        snapshotCosts.withLock { $0.append(cost) }
    }

    /// Once every snapshot taken so far is in.
    func settled() async {
        for task in snapshotTasks.withLock({ $0 }) { await task.value }
    }

    func at(_ mark: Mark) -> ContinuousClock.Instant? { marks.withLock { $0[mark]?.at } }

    /// Seconds from `a` to `b`, when both happened.
    func seconds(_ a: Mark, _ b: Mark) -> Double? {
        guard let x = at(a), let y = at(b) else { return nil }
        return BLEBenchmarks.seconds(y - x)
    }

    /// The step from `a` to `b`: wall time and each party's CPU.
    func step(_ a: Mark, _ b: Mark) -> Step? {
        guard let wall = seconds(a, b) else { return nil }
        let (x, y) = marks.withLock { ($0[a]?.cpu, $0[b]?.cpu) }
        guard let x, let y else { return Step(wall: wall) }
        return Step(
            wall: wall, holder: y.seconds(of: watched.holder, since: x),
            reader: y.seconds(of: watched.reader, since: x),
            bluetoothd: watched.bluetoothd.flatMap { y.seconds(of: $0, since: x) }, machine: y.machineSeconds(since: x))
    }

    /// The reader's log line of the response marks it (ReaderExchange logs it right after).
    /// Not "request sent": on L2CAP it comes once the frame is queued, before it is written,
    /// and on GATT once the channel has also handled what arrived meanwhile (the response's
    /// first chunks, at times); the links' wrappers mark the writes instead.
    func log(_ line: String) {
        if line.hasPrefix("response received: ") {
            mark(.responseReceived)
            let size = Int(line.dropFirst("response received: ".count).prefix { $0.isNumber }) ?? 0
            responseSize.withLock { $0 = size }
        }
    }

    var responseBytes: Int { responseSize.withLock { $0 } }
    var snapshotSeconds: [Double] { snapshotCosts.withLock { $0 } }
}

extension SessionClock.Step {
    init(wall: Double) { self.init(wall: wall, holder: nil, reader: nil, bluetoothd: nil, machine: nil) }
}

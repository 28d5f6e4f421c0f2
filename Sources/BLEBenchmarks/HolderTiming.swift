// The holder's own times through bluetoothd: `mdoc-holder present` (peripheral-server mode,
// over GATT or with --l2cap; `--once` per session, or one holder serving sessions in turn) on
// one adapter, and this process as the reader on the other (ProximityReader on the BlueZ
// roles, as `mdoc-reader request` runs it), requesting family_name and a 100 kB portrait with
// reader authentication. The reader's GATT client and L2CAP channel are wrapped to mark each
// step (TimedReaderLinks), with who was on the CPU in it (SessionClock).
import BLEBlueZ
import BLETransport
import BlueZ
import CommandLineSupport
import Foundation
import ISO18013
import MdocCrypto
import Presentation
import ProximityReader
import Synchronization

/// What `--holder-runs` needs: the holder, a store with the 100 kB portrait, the policy and
/// the test PKI (reader key and certificate, reader CA, IACA).
struct HolderSetup {
    var holder: String
    var store: String
    var policy: String
    var fixtures: String

    init?(_ options: Options) {
        guard let holder = options.holder, let store = options.bigStore, let policy = options.policy,
            let fixtures = options.fixtures
        else { return nil }
        self.holder = holder
        self.store = store
        self.policy = policy
        self.fixtures = fixtures
    }
}

struct HolderRun {
    var connectedToFirstByte: Double
    /// The reader's connection to its first write of the request: on GATT the subscription
    /// and State 0x01, on L2CAP the channel opened (both sides' work that precedes a request).
    var beforeRequest: SessionClock.Step
    /// The reader's first write of the request to the whole response received.
    var requestToResponse: Double
    /// The reader's writes of the request (first write begun to last returned).
    var writes: SessionClock.Step
    /// The last request byte written to the first response byte: the request's way to the
    /// holder, the holder's work, the first notification or SDU.
    var holderWork: SessionClock.Step
    /// First response byte to the whole response received.
    var transfer: SessionClock.Step
    /// The reader's first write of the request to the whole response received.
    var whole: SessionClock.Step
    /// Median time one CPU snapshot took (in the steps' wall time).
    var snapshotCost: Double
    var responseBytes: Int
    var valid: Bool
    /// The holder's CPU for the transaction, request to response (it does nothing else meanwhile).
    var holderCPU: Double? { whole.holder }
}

/// One session against a fresh `mdoc-holder present --once`.
func coldSession(_ setup: HolderSetup, _ options: Options, l2cap: Bool) async throws -> HolderRun {
    let holder = try HolderProcess(setup, adapter: options.server, l2cap: l2cap, once: true)
    defer { holder.stop() }
    let run = try await holderSession(setup, options, l2cap: l2cap, holder: holder)
    await holder.waitForExit()
    return run
}

/// One session against `holder`, at the next engagement it shows.
func holderSession(_ setup: HolderSetup, _ options: Options, l2cap: Bool, holder: HolderProcess) async throws
    -> HolderRun
{
    let uri = try holder.nextURI()
    let engagement = try DeviceEngagement(uri: uri)
    guard let bleOptions = engagement.bleOptions else { throw BenchmarkError("the engagement offers no BLE") }
    let mode = try ReaderBLEMode(choosing: .peripheral, from: bleOptions)
    let identity = ReaderIdentity(
        key: try PrivateKey(pem: String(contentsOfFile: "\(setup.fixtures)/pki/reader.key.pem", encoding: .utf8)),
        chain: try CertificateFile.read("\(setup.fixtures)/pki/reader.pem"))
    var session = try ReaderSession(
        engagement: engagement, trustAnchors: try CertificateFile.read("\(setup.fixtures)/pki/iaca.pem"),
        identity: identity)
    let items = ItemsRequest(
        docType: "org.iso.18013.5.1.mDL",
        nameSpaces: [.init("org.iso.18013.5.1", [.init("family_name"), .init("portrait")])])
    let establishment = try session.establishment(requesting: [items])

    let watched = SessionClock.Watched(
        holder: holder.pid, reader: ProcessInfo.processInfo.processIdentifier,
        bluetoothd: CPUSnapshot.process(named: "bluetoothd"))
    let clock = SessionClock(watched: watched)
    let client = try await BlueZClient.connect()
    let timeout = Duration.seconds(60)
    let roles = BlueZRoles.reader(client: client, adapter: options.client, timeout: timeout, l2cap: l2cap) { _ in }
    var reader = ProximityReader(
        client: TimedGattClient(inner: roles.client, clock: clock), server: nil, timeout: timeout,
        log: { clock.log($0) })
    reader.l2cap = l2cap
    let connection = try await reader.connect(mode, engagement: engagement)
    guard connection.overL2CAP == l2cap else {
        await connection.close(sending: nil)
        throw BenchmarkError(l2cap ? "the session did not go over L2CAP" : "the session went over L2CAP")
    }
    // The holder's CPU is read at each step's marks: at "response received" it is still up
    // (it waits for the reader's end of the session).
    let outcome = try await connection.exchange(
        establishment, with: &session, timeout: timeout, log: { clock.log($0) })
    guard case .response(let verified, _) = outcome else { throw BenchmarkError("no response: \(outcome)") }
    await clock.settled()
    guard let toFirst = clock.seconds(.connected, .firstResponseByte),
        let before = clock.step(.connected, .requestStart),
        let writes = clock.step(.requestStart, .requestWritten),
        let work = clock.step(.requestWritten, .firstResponseByte),
        let transfer = clock.step(.firstResponseByte, .responseReceived),
        let whole = clock.step(.requestStart, .responseReceived)
    else { throw BenchmarkError("a step was not seen") }
    return HolderRun(
        connectedToFirstByte: toFirst, beforeRequest: before, requestToResponse: whole.wall, writes: writes,
        holderWork: work,
        transfer: transfer, whole: whole, snapshotCost: median(clock.snapshotSeconds),
        responseBytes: clock.responseBytes, valid: verified.isValid)
}

/// The holder's medians, kept for the link-limit run (bluetoothd must be stopped for it).
struct HolderTimes: Codable {
    /// Seconds per response byte, first byte to last (transfer) and request sent to last.
    var gattTransferPerByte: Double?
    var gattTotalPerByte: Double?
    var gattResponseBytes: Int?
    var l2capTransferPerByte: Double?
    var l2capTotalPerByte: Double?
    var l2capResponseBytes: Int?
    /// The bare AcquireNotify push of the same bytes through bluetoothd (median seconds).
    var acquireNotifyPushSeconds: Double?
    /// Each session's request -> response per byte and its holder's CPU: the ratio is taken
    /// per session (the guest's CPU times vary from one session to the next with the host's load).
    var gattSessions: [SessionFigures]?
    var l2capSessions: [SessionFigures]?
    /// The same for the sessions of a holder serving them in turn (warm).
    var gattWarmSessions: [SessionFigures]?
    var l2capWarmSessions: [SessionFigures]?

    struct SessionFigures: Codable {
        var totalPerByte: Double
        var holderCPU: Double

        init?(_ run: HolderRun) {
            guard let cpu = run.holderCPU else { return nil }
            (totalPerByte, holderCPU) = (run.requestToResponse / Double(run.responseBytes), cpu)
        }
    }
}

/// `runs` sessions over GATT and over L2CAP, each against a fresh `--once` holder (cold),
/// then `warmRuns` against one holder serving session after session (warm, after one
/// session to warm it up); prints each and the medians.
func measureHolder(_ setup: HolderSetup, _ options: Options) async -> (HolderTimes, failed: Bool) {
    var times = HolderTimes()
    var failed = false
    print(
        "== the holder: mdoc-holder present on \(options.server), this process as the reader on "
            + "\(options.client); family_name + 100 kB portrait, reader auth; \(options.holderRuns) sessions each "
            + "against a fresh --once holder (cold), \(options.holderWarmRuns) against one holder serving them in turn "
            + "(warm); request = the reader's first write of it")
    for l2cap in [false, true] where options.holderModes.contains(l2cap ? "l2cap" : "gatt") {
        let name = l2cap ? "L2CAP" : "GATT"
        let cold = await series("\(name) run", count: options.holderRuns, failed: &failed) {
            try await coldSession(setup, options, l2cap: l2cap)
        }
        if !cold.isEmpty {
            printMedians(name, cold)
            let bytes = cold[0].responseBytes
            let transfer = median(cold.map { $0.transfer.wall / Double($0.responseBytes) })
            let total = median(cold.map { $0.requestToResponse / Double($0.responseBytes) })
            if l2cap {
                (times.l2capTransferPerByte, times.l2capTotalPerByte, times.l2capResponseBytes) = (
                    transfer, total, bytes
                )
                times.l2capSessions = cold.compactMap(HolderTimes.SessionFigures.init)
            } else {
                (times.gattTransferPerByte, times.gattTotalPerByte, times.gattResponseBytes) = (transfer, total, bytes)
                times.gattSessions = cold.compactMap(HolderTimes.SessionFigures.init)
            }
        }
        guard options.holderWarmRuns > 0 else { continue }
        let warm = await warmSeries(setup, options, l2cap: l2cap, failed: &failed)
        guard !warm.isEmpty else { continue }
        printMedians("\(name) warm", warm)
        if l2cap {
            times.l2capWarmSessions = warm.compactMap(HolderTimes.SessionFigures.init)
        } else {
            times.gattWarmSessions = warm.compactMap(HolderTimes.SessionFigures.init)
        }
    }
    return (times, failed)
}

/// `count` sessions, each printed as "label N".
private func series(
    _ label: String, count: Int, failed: inout Bool, _ session: () async throws -> HolderRun
) async -> [HolderRun] {
    var runs: [HolderRun] = []
    for run in 1...max(count, 1) where count > 0 {
        do {
            let r = try await session()
            runs.append(r)
            print("  \(label) \(run): " + describe(r))
            if !r.valid { failed = true }
        } catch {
            print("  \(label) \(run): FAILED: \(error)")
            failed = true
        }
        try? await Task.sleep(for: .seconds(1))
    }
    return runs
}

/// One holder serving a warm-up session, then `holderWarmRuns` sessions.
private func warmSeries(_ setup: HolderSetup, _ options: Options, l2cap: Bool, failed: inout Bool) async
    -> [HolderRun]
{
    let name = l2cap ? "L2CAP" : "GATT"
    let holder: HolderProcess
    do {
        holder = try HolderProcess(setup, adapter: options.server, l2cap: l2cap, once: false)
    } catch {
        print("  \(name) warm: FAILED: \(error)")
        failed = true
        return []
    }
    defer { holder.stop() }
    _ = await series("\(name) warm-up session", count: 1, failed: &failed) {
        try await holderSession(setup, options, l2cap: l2cap, holder: holder)
    }
    return await series("\(name) warm run", count: options.holderWarmRuns, failed: &failed) {
        try await holderSession(setup, options, l2cap: l2cap, holder: holder)
    }
}

/// One session's line.
private func describe(_ r: HolderRun) -> String {
    "response \(r.responseBytes) B\(r.valid ? "" : " (NOT VALID)"); connected -> first response byte "
        + "\(f(r.connectedToFirstByte, 3)) s; request -> response \(f(r.requestToResponse, 3)) s = the reader's writes "
        + "\(f(r.writes.wall, 3)) + the holder's work to the first response byte \(f(r.holderWork.wall, 3)) + first -> "
        + "last byte \(f(r.transfer.wall, 3)) s (\(f(Double(r.responseBytes) / r.transfer.wall / 1024, 1)) KiB/s); "
        + "holder CPU \(cpu(r.holderCPU)) s"
}

/// The medians: per 100 000 B, and each step's wall time with who was on the CPU.
private func printMedians(_ name: String, _ runs: [HolderRun]) {
    let transfer = median(runs.map { $0.transfer.wall / Double($0.responseBytes) })
    let total = median(runs.map { $0.requestToResponse / Double($0.responseBytes) })
    print(
        "  \(name): median connected -> first response byte \(f(median(runs.map(\.connectedToFirstByte)), 3)) s; "
            + "per 100 000 B: transfer \(f(transfer * 100_000, 3)) s, request -> response "
            + "\(f(total * 100_000, 3)) s")
    print(
        "  \(name): median steps, wall s; CPU s of holder / reader / bluetoothd / the whole guest (every vCPU, "
            + "kernel included); /proc read at each mark off the session's path, "
            + "median \(f(median(runs.map(\.snapshotCost)) * 1000, 1)) ms of the reader's CPU:")
    let steps: [(String, KeyPath<HolderRun, SessionClock.Step>)] = [
        (
            "connected -> the request's first write (GATT: subscribe, State 0x01; L2CAP: the channel opened)",
            \.beforeRequest
        ),
        ("the reader's writes of the request", \.writes),
        ("last request byte written -> first response byte (the holder's work)", \.holderWork),
        ("first -> last response byte (the notifications or SDUs)", \.transfer),
        ("request -> last response byte", \.whole),
    ]
    for (what, path) in steps {
        let s = runs.map { $0[keyPath: path] }
        func m(_ part: KeyPath<SessionClock.Step, Double?>) -> String {
            let values = s.compactMap { $0[keyPath: part] }
            return values.isEmpty ? "-" : f(median(values), 3)
        }
        print(
            "    \(what): \(f(median(s.map(\.wall)), 3)); \(m(\.holder)) / \(m(\.reader)) / \(m(\.bluetoothd)) / "
                + m(\.machine))
    }
}

private func cpu(_ seconds: Double?) -> String { seconds.map { f($0, 4) } ?? "?" }

/// The holder's times as ratios to the link's limits (measured for `bytes`).
func printRatios(_ times: HolderTimes, _ limits: LinkLimits, bytes: Int) {
    print("== the holder against the link's limits (per \(bytes) B; target GATT <= 1.5, L2CAP <= 1.2)")
    func line(_ name: String, _ perByte: Double?, _ limit: Double?, target: Double, _ what: String) {
        guard let perByte, let limit else {
            print("  \(name) \(what): not measured")
            return
        }
        let ratio = perByte * Double(bytes) / limit
        print(
            "  \(name) \(what): \(f(perByte * Double(bytes), 3)) s vs \(f(limit, 3)) s = \(f(ratio, 2))x "
                + "(\(ratio <= target ? "within" : "NOT within") \(f(target, 1))x)")
    }
    line("GATT", times.gattTransferPerByte, limits.attSeconds, target: 1.5, "first -> last byte / raw ATT")
    line("GATT", times.gattTotalPerByte, limits.attSeconds, target: 1.5, "request -> response / raw ATT")
    line("L2CAP", times.l2capTransferPerByte, limits.l2capSeconds, target: 1.2, "first -> last byte / raw CoC")
    line("L2CAP", times.l2capTotalPerByte, limits.l2capSeconds, target: 1.2, "request -> response / raw CoC")
    // Issue 29: request -> last response byte against the raw transfer of the same bytes plus
    // the holder's CPU for the transaction, both from this boot; judged per session.
    func withWork(_ name: String, _ sessions: [HolderTimes.SessionFigures]?, _ limit: Double?, _ raw: String) {
        let what = "\(name) request -> last response byte / (\(raw) + holder CPU)"
        guard let limit, let sessions, !sessions.isEmpty else {
            print("  \(what): not measured")
            return
        }
        let ratios = sessions.map { $0.totalPerByte * Double(bytes) / (limit + $0.holderCPU) }
        let ratio = median(ratios)
        print(
            "  \(what): medians \(f(median(sessions.map(\.totalPerByte)) * Double(bytes), 3)) s vs \(f(limit, 3)) + "
                + "\(f(median(sessions.map(\.holderCPU)), 4)) s; per session (its own holder CPU) "
                + "\(ratios.map { f($0, 2) }.joined(separator: " / ")), median \(f(ratio, 2))x "
                + "(\(ratio <= 1.5 ? "within" : "NOT within") 1.5x)")
    }
    let push = times.acquireNotifyPushSeconds
    withWork("GATT", times.gattSessions, push, "AcquireNotify push")
    withWork("GATT", times.gattSessions, limits.attSeconds, "raw ATT")
    withWork("L2CAP", times.l2capSessions, limits.l2capSeconds, "raw CoC")
    if times.gattWarmSessions != nil || times.l2capWarmSessions != nil {
        withWork("GATT warm", times.gattWarmSessions, push, "AcquireNotify push")
        withWork("GATT warm", times.gattWarmSessions, limits.attSeconds, "raw ATT")
        withWork("L2CAP warm", times.l2capWarmSessions, limits.l2capSeconds, "raw CoC")
    }
}

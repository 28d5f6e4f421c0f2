// The holder's own times through bluetoothd: `mdoc-holder present --once` (peripheral-server
// mode, over GATT or with --l2cap) on one adapter, and this process as the reader on the
// other (ProximityReader on the BlueZ roles, as `mdoc-reader request` runs it), requesting
// family_name and a 100 kB portrait with reader authentication. The reader's GATT client and
// L2CAP channel are wrapped to note when the first byte of the response arrives.
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

/// When each step of one session happened (the first time it happened).
final class SessionClock: Sendable {
    enum Mark: String, Sendable {
        case connected, requestSent, firstResponseByte, responseReceived
    }
    private let marks = Mutex<[Mark: ContinuousClock.Instant]>([:])
    private let responseSize = Mutex(0)

    func mark(_ mark: Mark) {
        let now = ContinuousClock.now
        marks.withLock { if $0[mark] == nil { $0[mark] = now } }
    }

    func at(_ mark: Mark) -> ContinuousClock.Instant? { marks.withLock { $0[mark] } }

    /// Seconds from `a` to `b`, when both happened.
    func seconds(_ a: Mark, _ b: Mark) -> Double? {
        guard let x = at(a), let y = at(b) else { return nil }
        return BLEBenchmarks.seconds(y - x)
    }

    /// The reader's log lines mark the steps (ReaderExchange logs right after each).
    func log(_ line: String) {
        if line.hasPrefix("request sent") {
            mark(.requestSent)
        } else if line.hasPrefix("response received: ") {
            mark(.responseReceived)
            let size = Int(line.dropFirst("response received: ".count).prefix { $0.isNumber }) ?? 0
            responseSize.withLock { $0 = size }
        }
    }

    var responseBytes: Int { responseSize.withLock { $0 } }
}

/// The reader's BlueZ GATT client, noting the connection and the first Server2Client
/// notification (the holder sends none before its response).
struct TimedGattClient: MdocGattClient {
    let inner: any MdocGattClient
    let clock: SessionClock

    func connect(serviceUUID: BluetoothUUID, characteristics: MdocBluetoothUUIDs.Characteristics) async throws
        -> MdocGattConnection
    {
        let connection = try await inner.connect(serviceUUID: serviceUUID, characteristics: characteristics)
        clock.mark(.connected)
        let (events, continuation) = AsyncStream<MdocGattClientEvent>.makeStream()
        let forward = Task { [clock] in
            for await event in connection.events {
                if case .notified(.server2Client, _) = event { clock.mark(.firstResponseByte) }
                continuation.yield(event)
            }
            continuation.finish()
        }
        continuation.onTermination = { _ in forward.cancel() }
        return MdocGattConnection(mtu: connection.mtu, events: events)
    }

    func readIdent() async throws -> [UInt8]? { try await inner.readIdent() }
    func subscribe() async throws { try await inner.subscribe() }
    func write(_ characteristic: MdocCharacteristic, _ value: [UInt8]) async throws {
        try await inner.write(characteristic, value)
    }
    func disconnect() async { await inner.disconnect() }

    func openL2CAP(psm: UInt16?) async throws -> (any MdocL2CAPChannel)? {
        guard let channel = try await inner.openL2CAP(psm: psm) else { return nil }
        return TimedL2CAPChannel(inner: channel, clock: clock)
    }
}

/// The reader's L2CAP channel, noting the first bytes received (the holder sends nothing
/// before its response).
struct TimedL2CAPChannel: MdocL2CAPChannel {
    let inner: any MdocL2CAPChannel
    let clock: SessionClock

    func send(_ bytes: [UInt8]) async throws { try await inner.send(bytes) }
    func receive() async throws -> [UInt8] {
        let bytes = try await inner.receive()
        clock.mark(.firstResponseByte)
        return bytes
    }
    func close() { inner.close() }
}

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
    /// First response byte to the whole response received.
    var transfer: Double
    /// Request sent to the whole response received.
    var requestToResponse: Double
    /// Request sent to the first response byte (the request's writes, the holder's work, the
    /// first notification).
    var requestToFirstByte: Double
    /// The holder process's CPU from the connection to the response received (it is idle
    /// otherwise): its work for the transaction, measured in the same machine.
    var holderCPU: Double?
    var responseBytes: Int
    var valid: Bool
}

/// CPU time of every thread of process `pid` so far, seconds (`/proc/PID/task/*/schedstat`,
/// nanoseconds on the CPU), or nil when it cannot be read.
func processCPUSeconds(_ pid: Int32) -> Double? {
    guard let tasks = try? FileManager.default.contentsOfDirectory(atPath: "/proc/\(pid)/task") else { return nil }
    var total: UInt64 = 0
    for task in tasks {
        guard let text = try? String(contentsOfFile: "/proc/\(pid)/task/\(task)/schedstat", encoding: .utf8),
            let ns = text.split(separator: " ").first.flatMap({ UInt64($0) })
        else { continue }
        total += ns
    }
    return Double(total) / 1e9
}

/// Starts `mdoc-holder present --once` on `options.server`; returns it and its URI.
func startHolder(_ setup: HolderSetup, adapter: String, l2cap: Bool) throws -> (Process, String) {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: setup.holder)
    process.arguments =
        [
            "present", "--adapter", adapter, "--qr", "uri", "--consent", "policy:\(setup.policy)",
            "--reader-trust", "\(setup.fixtures)/pki/reader-ca.pem", "--untrusted-readers", "refuse",
            "--store", setup.store, "--once",
        ] + (l2cap ? ["--l2cap"] : [])
    let out = Pipe()
    process.standardOutput = out
    process.standardError = FileHandle.nullDevice
    try process.run()
    var buffer = Data()
    while true {
        let data = out.fileHandleForReading.availableData
        if data.isEmpty { break }
        buffer += data
        if let line = String(decoding: buffer, as: UTF8.self).split(separator: "\n").first(where: {
            $0.hasPrefix("mdoc:")
        }) {
            return (process, String(line))
        }
    }
    process.terminate()
    process.waitUntilExit()
    throw BenchmarkError("mdoc-holder printed no mdoc: URI")
}

/// One session against a fresh `mdoc-holder present --once`.
func holderSession(_ setup: HolderSetup, _ options: Options, l2cap: Bool) async throws -> HolderRun {
    let (process, uri) = try startHolder(setup, adapter: options.server, l2cap: l2cap)
    defer {
        if process.isRunning { process.terminate() }
        process.waitUntilExit()
    }
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

    let clock = SessionClock()
    let client = try await BlueZClient.connect()
    let timeout = Duration.seconds(60)
    let roles = BlueZRoles.reader(client: client, adapter: options.client, timeout: timeout, l2cap: l2cap) { _ in }
    var reader = ProximityReader(
        client: TimedGattClient(inner: roles.client, clock: clock), server: nil, timeout: timeout,
        log: { clock.log($0) })
    reader.l2cap = l2cap
    let connection = try await reader.connect(mode, engagement: engagement)
    let cpuBefore = processCPUSeconds(process.processIdentifier)
    // Sampled every 2 ms, the highest kept: a `--once` holder may exit as soon as its last byte
    // is out, and once its threads are gone the sum over them goes down.
    let lastCPU = Mutex<Double?>(nil)
    let sampler = Task {
        while !Task.isCancelled {
            if let now = processCPUSeconds(process.processIdentifier) {
                lastCPU.withLock { $0 = max($0 ?? 0, now) }
            }
            try? await Task.sleep(for: .milliseconds(2))
        }
    }
    guard connection.overL2CAP == l2cap else {
        await connection.close(sending: nil)
        throw BenchmarkError(l2cap ? "the session did not go over L2CAP" : "the session went over L2CAP")
    }
    let outcome = try await connection.exchange(
        establishment, with: &session, timeout: timeout, log: { clock.log($0) })
    guard case .response(let verified, _) = outcome else { throw BenchmarkError("no response: \(outcome)") }
    sampler.cancel()
    let final = processCPUSeconds(process.processIdentifier)
    let cpuAfter = lastCPU.withLock { last in last.map { max($0, final ?? 0) } ?? final }
    // The holder (--once) exits once the session is over.
    for _ in 0..<100 where process.isRunning { try await Task.sleep(for: .milliseconds(100)) }
    guard let toFirst = clock.seconds(.connected, .firstResponseByte),
        let transfer = clock.seconds(.firstResponseByte, .responseReceived),
        let total = clock.seconds(.requestSent, .responseReceived),
        let requestToFirst = clock.seconds(.requestSent, .firstResponseByte)
    else { throw BenchmarkError("a step was not seen") }
    return HolderRun(
        connectedToFirstByte: toFirst, transfer: transfer, requestToResponse: total,
        requestToFirstByte: requestToFirst, holderCPU: cpuBefore.flatMap { b in cpuAfter.map { $0 - b } },
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
    /// The holder's CPU per transaction (median seconds), in the same boot.
    var gattHolderCPU: Double?
    var l2capHolderCPU: Double?
    /// The bare AcquireNotify push of the same bytes through bluetoothd (median seconds).
    var acquireNotifyPushSeconds: Double?
}

/// `runs` sessions over GATT and over L2CAP; prints each and the medians.
func measureHolder(_ setup: HolderSetup, _ options: Options) async -> (HolderTimes, failed: Bool) {
    var times = HolderTimes()
    var failed = false
    print(
        "== the holder: mdoc-holder present --once on \(options.server), this process as the reader on "
            + "\(options.client); family_name + 100 kB portrait, reader auth; \(options.holderRuns) runs each")
    for l2cap in [false, true] where options.holderModes.contains(l2cap ? "l2cap" : "gatt") {
        let name = l2cap ? "L2CAP" : "GATT"
        var runs: [HolderRun] = []
        for run in 1...options.holderRuns {
            do {
                let r = try await holderSession(setup, options, l2cap: l2cap)
                runs.append(r)
                print(
                    "  \(name) run \(run): response \(r.responseBytes) B\(r.valid ? "" : " (NOT VALID)"); connected -> "
                        + "first response byte \(f(r.connectedToFirstByte, 3)) s; first -> last byte "
                        + "\(f(r.transfer, 3)) s (\(f(Double(r.responseBytes) / r.transfer / 1024, 1)) KiB/s); "
                        + "request sent -> response \(f(r.requestToResponse, 3)) s (request sent -> first "
                        + "response byte \(f(r.requestToFirstByte, 3)) s, holder CPU \(r.holderCPU.map { f($0, 4) } ?? "?") s)"
                )
                if !r.valid { failed = true }
            } catch {
                print("  \(name) run \(run): FAILED: \(error)")
                failed = true
            }
            try? await Task.sleep(for: .seconds(1))
        }
        guard !runs.isEmpty else { continue }
        let bytes = runs[0].responseBytes
        let transfer = median(runs.map { $0.transfer / Double($0.responseBytes) })
        let total = median(runs.map { $0.requestToResponse / Double($0.responseBytes) })
        print(
            "  \(name): median connected -> first response byte \(f(median(runs.map(\.connectedToFirstByte)), 3)) s; "
                + "per 100 000 B: transfer \(f(transfer * 100_000, 3)) s, request -> response "
                + "\(f(total * 100_000, 3)) s")
        let cpus = runs.compactMap(\.holderCPU)
        let cpu = cpus.isEmpty ? nil : median(cpus)
        print(
            "  \(name): median steps: request sent -> first response byte "
                + "\(f(median(runs.map(\.requestToFirstByte)), 3)) s (the request's writes, the holder's work, the "
                + "first notification), of which holder CPU \(cpu.map { f($0, 4) } ?? "?") s; first -> last byte "
                + "\(f(median(runs.map(\.transfer)), 3)) s (the notifications or SDUs)")
        if l2cap {
            (times.l2capTransferPerByte, times.l2capTotalPerByte, times.l2capResponseBytes) = (transfer, total, bytes)
            times.l2capHolderCPU = cpu
        } else {
            (times.gattTransferPerByte, times.gattTotalPerByte, times.gattResponseBytes) = (transfer, total, bytes)
            times.gattHolderCPU = cpu
        }
    }
    return (times, failed)
}

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
    line("GATT", times.gattTotalPerByte, limits.attSeconds, target: 1.5, "request sent -> response / raw ATT")
    line("L2CAP", times.l2capTransferPerByte, limits.l2capSeconds, target: 1.2, "first -> last byte / raw CoC")
    line("L2CAP", times.l2capTotalPerByte, limits.l2capSeconds, target: 1.2, "request sent -> response / raw CoC")
    // Issue 29: request sent -> last response byte against the raw transfer of the same bytes
    // plus the holder's CPU for the transaction, both from this boot.
    func withWork(_ name: String, _ perByte: Double?, _ limit: Double?, _ cpu: Double?, _ raw: String) {
        guard let perByte, let limit, let cpu else {
            print("  \(name) request sent -> last response byte / (\(raw) + holder CPU): not measured")
            return
        }
        let ratio = perByte * Double(bytes) / (limit + cpu)
        print(
            "  \(name) request sent -> last response byte / (\(raw) + holder CPU): \(f(perByte * Double(bytes), 3)) s vs "
                + "\(f(limit, 3)) + \(f(cpu, 4)) s = \(f(ratio, 2))x (\(ratio <= 1.5 ? "within" : "NOT within") 1.5x)")
    }
    withWork("GATT", times.gattTotalPerByte, times.acquireNotifyPushSeconds, times.gattHolderCPU, "AcquireNotify push")
    withWork("GATT", times.gattTotalPerByte, limits.attSeconds, times.gattHolderCPU, "raw ATT")
    withWork("L2CAP", times.l2capTotalPerByte, limits.l2capSeconds, times.l2capHolderCPU, "raw CoC")
}

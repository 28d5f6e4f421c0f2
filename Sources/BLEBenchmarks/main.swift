// mdoc-ble-benchmarks: BLE figures through a real bluetoothd and of the link itself (run in
// the BlueZ VM by `make bench-ble`, Tests/Support/vm/bench-ble.sh):
//   1. pushing a response (default 100 000 B) from a GATT server on one adapter to a client
//      on the other, as notifications of min(512, MTU - 3) bytes, through BlueZ's
//      PropertiesChanged path and through the AcquireNotify socket (fd) path; notifications
//      arriving out of order are counted (EATT spreads them over several ATT bearers);
//   2. the wire overhead of an 18013-5 message at ATT MTU 23, 185 and 517 (computed);
//   3. the holder's own times (HolderTiming.swift): `mdoc-holder present --once` serving a
//      100 kB portrait over GATT and over L2CAP to this process as the reader; kept in
//      --results for 5;
//   4. process start to the engagement URI printed by `mdoc-holder present --qr uri`;
//   5. with --link-limits, with bluetoothd stopped: the link's own limits (LinkLimits.swift),
//      raw ATT notifications and a raw L2CAP CoC socket pair, and the holder's times of
//      --results as ratios to them.
// Usage: mdoc-ble-benchmarks [--bytes N] [--runs N] [--server hci0] [--client hci1]
//        [--holder PATH --store PATH --policy PATH] [--qr-runs N]
//        [--big-store PATH --fixtures DIR] [--holder-runs N] [--holder-warm-runs N] [--holder-modes gatt,l2cap] [--results FILE]
//        [--only push,overhead,holder,uri]
//        mdoc-ble-benchmarks --link-limits [--bytes N] [--runs N] [--att-mtu N] [--results FILE]
import BLEBlueZ
import BLETransport
import BlueZ
import DBus
import Foundation
import ISO18013

struct Options {
    var bytes = 100_000
    var runs = 3
    var server = "hci0"
    var client = "hci1"
    var holder: String?
    var store: String?
    var policy: String?
    var qrRuns = 5
    var bigStore: String?
    var fixtures: String?
    var holderRuns = 3
    /// Sessions against one holder serving them in turn, after a warm-up session (0: none;
    /// BlueZoo takes one connection per mock).
    var holderWarmRuns = 0
    /// The holder's transports: gatt, l2cap (BlueZoo has no L2CAP sockets).
    var holderModes: Set<String> = ["gatt", "l2cap"]
    var results: String?
    var linkLimits = false
    /// The ATT MTU both raw peers ask for: bluetoothd's ExchangeMTU in vm/main.conf.
    var attMTU = 513
    /// The parts to run (push, overhead, holder, uri); all by default.
    var only: Set<String> = ["push", "overhead", "holder", "uri"]

    init(_ arguments: [String]) throws {
        var it = arguments.makeIterator()
        func value(_ name: String) throws -> String {
            guard let v = it.next() else { throw BenchmarkError("\(name) needs a value") }
            return v
        }
        while let a = it.next() {
            switch a {
            case "--bytes": bytes = Int(try value(a)) ?? bytes
            case "--runs": runs = Int(try value(a)) ?? runs
            case "--server": server = try value(a)
            case "--client": client = try value(a)
            case "--holder": holder = try value(a)
            case "--store": store = try value(a)
            case "--policy": policy = try value(a)
            case "--qr-runs": qrRuns = Int(try value(a)) ?? qrRuns
            case "--big-store": bigStore = try value(a)
            case "--fixtures": fixtures = try value(a)
            case "--holder-runs": holderRuns = Int(try value(a)) ?? holderRuns
            case "--holder-warm-runs": holderWarmRuns = Int(try value(a)) ?? holderWarmRuns
            case "--holder-modes": holderModes = Set(try value(a).split(separator: ",").map(String.init))
            case "--results": results = try value(a)
            case "--link-limits": linkLimits = true
            case "--att-mtu": attMTU = Int(try value(a)) ?? attMTU
            case "--only": only = Set(try value(a).split(separator: ",").map(String.init))
            default: throw BenchmarkError("unknown argument \(a)")
            }
        }
    }
}

struct BenchmarkError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}

func seconds(_ d: Duration) -> Double { d / .seconds(1) }

func median(_ values: [Double]) -> Double {
    let s = values.sorted()
    return s.isEmpty ? .nan : s[s.count / 2]
}

func f(_ x: Double, _ digits: Int = 2) -> String { String(format: "%.\(digits)f", x) }

// MARK: - 1. Pushing a response through bluetoothd

struct PushResult {
    var seconds: Double
    var bytes: Int
    var notifications: Int
    var outOfOrder: Int
    var duplicates: Int
    var chunk: Int
    var mtu: Int
}

/// One transfer: a fresh service on `options.server`, a client on `options.client` that
/// subscribes and writes "go" (carrying nothing; BlueZ passes the MTU with the write), then
/// `options.bytes` bytes as notifications with a 4-byte sequence number each.
func push(_ path: BlueZMdocGattServer.NotifyPath, _ options: Options) async throws -> PushResult {
    let serverClient = try await BlueZClient.connect()
    let clientClient = try await BlueZClient.connect()
    let serviceUUID = BluetoothUUID(UUID().uuidString.lowercased())!
    let notifyUUID: BluetoothUUID = "6d6f6300-0000-4000-8000-000000000001"
    let writeUUID: BluetoothUUID = "6d6f6300-0000-4000-8000-000000000002"
    let app = try GattApplication(
        path: "/bench/app",
        services: [
            GattServiceDescription(
                uuid: serviceUUID,
                characteristics: [
                    GattCharacteristicDescription(
                        uuid: notifyUUID, flags: [.notify], acquireNotify: path == .acquiredSocket),
                    GattCharacteristicDescription(uuid: writeUUID, flags: [.writeWithoutResponse]),
                ])
        ])
    let host = GattServerHost(
        client: serverClient, adapter: options.server, application: app,
        advertisement: LEAdvertisement(path: "/bench/advertisement", serviceUUIDs: [serviceUUID]))

    // The client scans first, the server advertises after (btvirt delivers an advertising
    // report once, when scanning or advertising is enabled: TESTING.md pitfall 7).
    let clientAdapter = try await clientClient.adapter(named: options.client)
    let discovery = Task { try await clientAdapter.discoverDevice(advertising: serviceUUID, timeout: .seconds(30)) }
    try await Task.sleep(for: .milliseconds(500))
    _ = try await host.start()

    // The server: on "go", push the bytes.
    let total = options.bytes
    let server = Task { try await pushOnWrite(app, notifyUUID, total: total) }

    let device = try await discovery.value
    try await device.connect(timeout: .seconds(30))
    let notifyChar = try await device.characteristic(notifyUUID, inService: serviceUUID)
    let writeChar = try await device.characteristic(writeUUID, inService: serviceUUID)
    let values = try await notifyChar.startNotifications()
    // Subscribed at the server's side too (StartNotify / AcquireNotify reached the app).
    for _ in 0..<100 where !app.isSubscribed(notifyUUID) { try await Task.sleep(for: .milliseconds(20)) }

    let clock = ContinuousClock()
    let start = clock.now
    try await writeChar.write(Array("go".utf8), type: BlueZ.GattWriteType.command)
    let receiver = Task { await receivePushed(values, total: total, since: start, clock) }
    let deadline = Task {
        try await Task.sleep(for: .seconds(60))
        receiver.cancel()
    }
    var r = await receiver.value
    deadline.cancel()
    r.mtu = (try? await server.value) ?? 0
    server.cancel()
    try? await notifyChar.stopNotifications()
    try? await device.disconnect()
    await host.stop()
    app.finish()
    // The next run starts from a disconnected link.
    for _ in 0..<50 where (try? await device.info().connected) == true { try await Task.sleep(for: .milliseconds(100)) }
    try await Task.sleep(for: .seconds(1))
    guard r.bytes >= total else {
        throw BenchmarkError("only \(r.bytes) of \(total) bytes arrived in 60 s")
    }
    return r
}

/// The server's side of ``push(_:_:)``: on the client's write, `total` bytes as
/// notifications, each led by its 4-byte sequence number, cut as the holder cuts chunks; the
/// MTU the write carried.
func pushOnWrite(_ app: GattApplication, _ notifyUUID: BluetoothUUID, total: Int) async throws -> Int {
    for await event in app.events {
        guard case .write(_, _, let request) = event else { continue }
        let mtu = request.mtu ?? 23
        // As the holder cuts chunks (BlueZMdocGattServer.usableMTU): whole at MTU - 5.
        let chunk = min(512, mtu - 5)
        var sent = 0
        var seq: UInt32 = 0
        while sent < total {
            let n = min(chunk - 4, total - sent)
            var value = withUnsafeBytes(of: seq.littleEndian) { Array($0) }
            value += [UInt8](repeating: UInt8(truncatingIfNeeded: seq), count: n)
            try await app.notify(notifyUUID, value)
            sent += n
            seq += 1
        }
        return mtu
    }
    throw BenchmarkError("the application ended before the client wrote")
}

/// The client's side of ``push(_:_:)``: notifications until `total` bytes arrived (or the
/// stream ends), counted and timed from `start`.
func receivePushed(
    _ values: AsyncStream<[UInt8]>, total: Int, since start: ContinuousClock.Instant, _ clock: ContinuousClock
) async -> PushResult {
    var result = PushResult(seconds: 0, bytes: 0, notifications: 0, outOfOrder: 0, duplicates: 0, chunk: 0, mtu: 0)
    var seen = Set<UInt32>()
    var maxSeq: Int64 = -1
    for await value in values {
        guard value.count >= 4 else { continue }
        let seq = value[0..<4].enumerated().reduce(UInt32(0)) { $0 | UInt32($1.element) << (8 * UInt32($1.offset)) }
        if !seen.insert(seq).inserted { result.duplicates += 1 }
        if Int64(seq) < maxSeq { result.outOfOrder += 1 }
        maxSeq = max(maxSeq, Int64(seq))
        result.notifications += 1
        result.bytes += value.count - 4
        result.chunk = max(result.chunk, value.count)
        if result.bytes >= total { break }
    }
    result.seconds = seconds(clock.now - start)
    return result
}

// MARK: - 2. Wire overhead per 18013-5 message

/// Bytes on the ATT bearer for one message of `size` bytes (SessionData-wrapped and
/// encrypted) at `mtu`: per chunk 1 byte of 18013-5 header, 3 of ATT notification
/// header, 4 of L2CAP basic header.
func overheadLine(mtu: Int, plaintext size: Int) throws -> String {
    let fragmenter = try MessageFragmenter(mtu: mtu)
    // SessionData{"data": AES-256-GCM(plaintext)}: the ciphertext carries a 16-byte tag.
    let message = SessionData(data: [UInt8](repeating: 0, count: size + 16)).encoded
    let chunks = fragmenter.chunkCount(forMessageSize: message.count)
    let cborAndTag = message.count - size
    let perChunk = 1 + 3 + 4
    let headers = cborAndTag + chunks * perChunk
    return "  MTU \(mtu): \(size) B payload -> \(message.count) B SessionData in \(chunks) chunks of <= "
        + "\(fragmenter.chunkSize) B; headers \(headers) B (CBOR+GCM tag \(cborAndTag), per chunk \(perChunk)) = "
        + "\(f(Double(headers) / Double(size), 4)) B per payload byte"
}

// MARK: - 3. Process start to the engagement URI

func startToURI(_ options: Options) throws -> [Double] {
    guard let holder = options.holder, let store = options.store, let policy = options.policy else { return [] }
    var samples: [Double] = []
    for _ in 0..<options.qrRuns {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: holder)
        process.arguments = [
            "present", "--adapter", options.server, "--qr", "uri", "--consent", "policy:\(policy)", "--store", store,
        ]
        let out = Pipe()
        process.standardOutput = out
        process.standardError = FileHandle.nullDevice
        let clock = ContinuousClock()
        let start = clock.now
        try process.run()
        var buffer = Data()
        var found = false
        while !found {
            let data = out.fileHandleForReading.availableData
            if data.isEmpty { break }
            buffer += data
            found = String(decoding: buffer, as: UTF8.self).split(separator: "\n").contains { $0.hasPrefix("mdoc:") }
        }
        let took = seconds(clock.now - start)
        process.terminate()
        process.waitUntilExit()
        guard found else { throw BenchmarkError("mdoc-holder printed no mdoc: URI") }
        samples.append(took)
        Thread.sleep(forTimeInterval: 0.5)
    }
    return samples
}

// MARK: - Main

let options: Options
do {
    options = try Options(Array(CommandLine.arguments.dropFirst()))
} catch {
    FileHandle.standardError.write(Data("mdoc-ble-benchmarks: \(error)\n".utf8))
    exit(2)
}
var failed = false
/// The median of the AcquireNotify fd pushes (the bare push through the same bluetoothd).
var acquireNotifyPush: Double?
if options.linkLimits {
    let (limits, linkFailed) = await measureLinkLimits(options)
    if let path = options.results {
        do {
            let times = try JSONDecoder().decode(HolderTimes.self, from: Data(contentsOf: URL(fileURLWithPath: path)))
            printRatios(times, limits, bytes: options.bytes)
        } catch {
            print("== the holder against the link's limits: no holder times in \(path) (\(error))")
        }
    }
    exit(linkFailed ? 1 : 0)
}
if options.only.contains("push") {
    print(
        "== push \(options.bytes) B from \(options.server) (GATT server) to \(options.client) (client), \(options.runs) runs each"
    )
    for path in [BlueZMdocGattServer.NotifyPath.propertiesChanged, .acquiredSocket] {
        let name = path == .propertiesChanged ? "PropertiesChanged" : "AcquireNotify fd"
        var times: [Double] = []
        for run in 1...options.runs {
            do {
                let r = try await push(path, options)
                times.append(r.seconds)
                print(
                    "  \(name) run \(run): \(r.bytes) B in \(r.notifications) notifications of <= \(r.chunk) B (MTU \(r.mtu)), "
                        + "\(f(r.seconds, 3)) s, \(f(Double(r.bytes) / r.seconds / 1024, 1)) KiB/s, "
                        + "out of order \(r.outOfOrder), duplicates \(r.duplicates)")
            } catch {
                print("  \(name) run \(run): FAILED: \(error)")
                failed = true
            }
        }
        if !times.isEmpty {
            if path == .acquiredSocket { acquireNotifyPush = median(times) }
            print(
                "  \(name): median \(f(median(times), 3)) s (\(f(Double(options.bytes) / median(times) / 1024, 1)) KiB/s)"
            )
        }
    }

}

if options.only.contains("overhead") {
    print("== wire overhead per 18013-5 message (18013-5 chunk header + ATT + L2CAP; link layer not counted)")
    for mtu in [23, 185, 517] {
        for size in [1_000, 100_000] {
            print((try? overheadLine(mtu: mtu, plaintext: size)) ?? "  MTU \(mtu): invalid")
        }
    }

}

if options.only.contains("holder"), let setup = HolderSetup(options) {
    var (times, holderFailed) = await measureHolder(setup, options)
    times.acquireNotifyPushSeconds = acquireNotifyPush
    failed = failed || holderFailed
    if let path = options.results {
        do {
            try JSONEncoder().encode(times).write(to: URL(fileURLWithPath: path))
        } catch {
            print("  cannot write \(path): \(error)")
            failed = true
        }
    }
}

if options.only.contains("uri"), options.holder != nil {
    print("== process start to mdoc: URI printed (mdoc-holder present --qr uri), \(options.qrRuns) runs")
    do {
        let samples = try startToURI(options)
        print(
            "  \(samples.map { f($0, 3) }.joined(separator: " ")) s; median \(f(median(samples), 3)) s")
    } catch {
        print("  FAILED: \(error)")
        failed = true
    }
}
exit(failed ? 1 : 0)

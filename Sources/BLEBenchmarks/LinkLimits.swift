// The link's own limits on the btvirt pair, with no bluetoothd: what the holder's times are
// compared with.
//   - Raw ATT: a user-space ATT peer on the kernel's LE ATT fixed channel (CID 4). The client
//     (hci1) connects, exchanges the MTU (the same 513 as bluetoothd's ExchangeMTU), writes
//     "go" (a Write Command), and the server (hci0) pushes the bytes as Handle Value
//     Notifications of MTU - 3 value bytes, as fast as the socket takes them.
//   - Raw L2CAP CoC: our L2CAPListener / L2CAPChannel, the bytes as one message framed as the
//     holder frames it (L2CAPFraming), the same MTU settings as the holder's.
import BLETransport
import Foundation
import L2CAP
import Synchronization

/// Attribute Protocol opcodes used here (Core Vol 3 Part F 3.4).
enum ATTOpcode {
    static let exchangeMTURequest: UInt8 = 0x02
    static let exchangeMTUResponse: UInt8 = 0x03
    static let writeCommand: UInt8 = 0x52
    static let handleValueNotification: UInt8 = 0x1B
}

struct LinkResult {
    var seconds: Double
    var bytes: Int
    var pdus: Int
    var largest: Int
    var mtu: Int
    var receiveMTU = 0
}

/// The addresses of the two adapters (the kernel's, no bluetoothd).
struct AdapterPair {
    var server: BluetoothDeviceAddress
    var client: BluetoothDeviceAddress

    init(_ options: Options) throws {
        server = try BluetoothDeviceAddress.ofAdapter(options.server)
        client = try BluetoothDeviceAddress.ofAdapter(options.client)
    }
}

/// Runs `body`, cancelling it and closing everything in `closers` after `seconds`.
func bounded<T: Sendable>(
    _ seconds: Int, _ what: String, closing closers: Closers, _ body: @escaping @Sendable () async throws -> T
) async throws -> T {
    let work = Task { try await body() }
    let watchdog = Task {
        try await Task.sleep(for: .seconds(seconds))
        closers.closeAll()
        work.cancel()
    }
    defer { watchdog.cancel() }
    do {
        return try await work.value
    } catch {
        throw BenchmarkError("\(what): \(error)\(work.isCancelled ? " (after \(seconds) s)" : "")")
    }
}

/// What to close when a step takes too long or the transfer ends.
final class Closers: Sendable {
    private let actions = Mutex<[@Sendable () -> Void]>([])
    func add(_ action: @escaping @Sendable () -> Void) { actions.withLock { $0.append(action) } }
    func closeAll() { for action in actions.withLock({ $0 }) { action() } }
}

// MARK: - Raw ATT notifications

/// One transfer over the ATT fixed channel between user-space peers.
func rawATT(_ adapters: AdapterPair, bytes total: Int, mtu preferred: Int) async throws -> LinkResult {
    let listener = try L2CAPFixedChannelListener(adapter: adapters.server)
    let closers = Closers()
    closers.add { listener.close() }
    defer { closers.closeAll() }

    let server = Task { () throws -> Int in
        let channel = try await listener.accept()
        closers.add { channel.close() }
        // The client's Exchange MTU Request; the server answers with the same preference.
        let request = try await channel.receive()
        guard request.count == 3, request[0] == ATTOpcode.exchangeMTURequest else {
            throw BenchmarkError("expected an Exchange MTU Request, got \(request.prefix(8))")
        }
        let clientMTU = Int(request[1]) | Int(request[2]) << 8
        try await channel.send([ATTOpcode.exchangeMTUResponse, UInt8(preferred & 0xFF), UInt8(preferred >> 8)])
        let mtu = min(clientMTU, preferred)
        // "go": a Write Command.
        while try await channel.receive().first != ATTOpcode.writeCommand {}
        let handle: UInt16 = 0x0010
        let valueSize = mtu - 3
        var sent = 0
        var pdu = [ATTOpcode.handleValueNotification, UInt8(handle & 0xFF), UInt8(handle >> 8)]
        pdu += [UInt8](repeating: 0x5A, count: valueSize)
        while sent < total {
            let n = min(valueSize, total - sent)
            try await channel.send(n == valueSize ? pdu : Array(pdu.prefix(3 + n)))
            sent += n
        }
        return mtu
    }

    let client = try await bounded(
        20, "ATT connect from \(adapters.client) to \(adapters.server)", closing: closers
    ) {
        try await L2CAPFixedChannel.connect(from: adapters.client, to: adapters.server)
    }
    closers.add { client.close() }
    try await client.send([ATTOpcode.exchangeMTURequest, UInt8(preferred & 0xFF), UInt8(preferred >> 8)])
    let response = try await client.receive()
    guard response.count == 3, response[0] == ATTOpcode.exchangeMTUResponse else {
        throw BenchmarkError("expected an Exchange MTU Response, got \(response.prefix(8))")
    }
    let mtu = min(preferred, Int(response[1]) | Int(response[2]) << 8)

    let clock = ContinuousClock()
    let start = clock.now
    try await client.send([ATTOpcode.writeCommand, 0x12, 0x00] + Array("go".utf8))
    let result = try await bounded(60, "receiving \(total) B of notifications", closing: closers) {
        var r = LinkResult(seconds: 0, bytes: 0, pdus: 0, largest: 0, mtu: mtu)
        while r.bytes < total {
            let pdu = try await client.receive()
            guard pdu.first == ATTOpcode.handleValueNotification, pdu.count >= 3 else { continue }
            r.pdus += 1
            r.bytes += pdu.count - 3
            r.largest = max(r.largest, pdu.count - 3)
        }
        r.seconds = seconds(clock.now - start)
        return r
    }
    _ = try await server.value
    return result
}

// MARK: - Raw L2CAP CoC

/// One message of `total` bytes framed as the holder frames it, over a plain L2CAP CoC
/// socket pair: from the client's "go" to the last byte of the frame decoded.
func rawL2CAP(_ adapters: AdapterPair, bytes total: Int) async throws -> LinkResult {
    let listener = try L2CAPListener(adapter: adapters.server)
    let closers = Closers()
    closers.add { listener.close() }
    defer { closers.closeAll() }

    let server = Task { () throws -> Void in
        let channel: L2CAPChannel = try await listener.accept()
        closers.add { channel.close() }
        _ = try await channel.receive()  // "go"
        try await channel.send(try L2CAPFraming.frame([UInt8](repeating: 0x5A, count: total)))
    }
    let client = try await bounded(
        20, "L2CAP connect to \(adapters.server) PSM \(listener.psm)", closing: closers
    ) {
        try await L2CAPChannel.connect(to: adapters.server, psm: listener.psm)
    }
    closers.add { client.close() }

    let clock = ContinuousClock()
    let start = clock.now
    try await client.send(Array("go".utf8))
    let result = try await bounded(60, "receiving a \(total) B frame", closing: closers) {
        var decoder = L2CAPMessageDecoder(maximumMessageSize: MessageSizeLimit.response)
        var r = LinkResult(
            seconds: 0, bytes: 0, pdus: 0, largest: 0, mtu: client.sendMTU, receiveMTU: client.receiveMTU)
        while r.bytes < total {
            let sdu = try await client.receive()
            r.pdus += 1
            r.largest = max(r.largest, sdu.count)
            for message in try decoder.append(sdu) { r.bytes += message.count }
        }
        r.seconds = seconds(clock.now - start)
        return r
    }
    try await server.value
    return result
}

// MARK: - Running them

struct LinkLimits {
    var attSeconds: Double?
    var l2capSeconds: Double?
}

/// Both limits, `options.runs` times each; prints each run and the medians.
func measureLinkLimits(_ options: Options) async -> (LinkLimits, failed: Bool) {
    var limits = LinkLimits()
    var failed = false
    let adapters: AdapterPair
    do {
        adapters = try AdapterPair(options)
    } catch {
        print("  FAILED: the adapters' addresses: \(error)")
        return (limits, true)
    }
    print(
        "== link limits, no bluetoothd: \(options.bytes) B from \(options.server) (\(adapters.server)) to "
            + "\(options.client) (\(adapters.client)), \(options.runs) runs each")
    limits.attSeconds = await medianRun("raw ATT notifications", summary: "raw ATT", options, failed: &failed) {
        let r = try await rawATT(adapters, bytes: options.bytes, mtu: options.attMTU)
        return (
            r.seconds,
            "\(r.bytes) B in \(r.pdus) notifications of <= \(r.largest) B (MTU \(r.mtu)), \(f(r.seconds, 3)) s, "
                + "\(f(Double(r.bytes) / r.seconds / 1024, 1)) KiB/s"
        )
    }
    limits.l2capSeconds = await medianRun("raw L2CAP CoC", summary: "raw L2CAP CoC", options, failed: &failed) {
        let r = try await rawL2CAP(adapters, bytes: options.bytes)
        let frame = "one \(r.bytes) B frame in \(r.pdus) SDUs of <= \(r.largest) B"
        return (
            r.seconds,
            "\(frame) (send MTU \(r.mtu), receive MTU \(r.receiveMTU)), \(f(r.seconds, 3)) s, "
                + "\(f(Double(r.bytes) / r.seconds / 1024, 1)) KiB/s"
        )
    }
    return (limits, failed)
}

/// `options.runs` runs of `body` (its seconds and what to print of it), each reported as
/// `name` run N, then the median of those that succeeded as `summary`; that median, nil when
/// every run failed. A failed run sets `failed`.
func medianRun(
    _ name: String, summary: String, _ options: Options, failed: inout Bool,
    _ body: () async throws -> (seconds: Double, report: String)
) async -> Double? {
    var seconds: [Double] = []
    for run in 1...options.runs {
        do {
            let (time, report) = try await body()
            seconds.append(time)
            print("  \(name) run \(run): \(report)")
        } catch {
            print("  \(name) run \(run): FAILED: \(error)")
            failed = true
        }
        // The kernel drops an idle LE link 2 s after its last channel closed (a connect in
        // between would ride the dying link).
        try? await Task.sleep(for: .seconds(4))
    }
    guard !seconds.isEmpty else { return nil }
    let m = median(seconds)
    print("  \(summary): median \(f(m, 3)) s (\(f(Double(options.bytes) / m / 1024, 1)) KiB/s)")
    return m
}

// `mdoc-holder present` as the benchmark runs it: `--once`, a fresh (cold) process per
// session, or serving session after session (warm: its code paths, caches and, under
// emulation, translated code already in place), each session's engagement read from the
// URI it prints.
import Foundation

/// A running `mdoc-holder present --qr uri` on one adapter.
final class HolderProcess {
    let process: Process
    private let output: FileHandle
    /// What it printed and was not read yet.
    private var pending = Data()

    /// Starts the holder; `once`: it serves one session and exits.
    init(_ setup: HolderSetup, adapter: String, l2cap: Bool, once: Bool) throws {
        process = Process()
        process.executableURL = URL(fileURLWithPath: setup.holder)
        process.arguments =
            [
                "present", "--adapter", adapter, "--qr", "uri", "--consent", "policy:\(setup.policy)",
                "--reader-trust", "\(setup.fixtures)/pki/reader-ca.pem", "--untrusted-readers", "refuse",
                "--store", setup.store,
            ] + (once ? ["--once"] : []) + (l2cap ? ["--l2cap"] : [])
        let out = Pipe()
        process.standardOutput = out
        process.standardError = FileHandle.nullDevice
        output = out.fileHandleForReading
        try process.run()
    }

    var pid: Int32 { process.processIdentifier }

    /// The next `mdoc:` URI it prints (each session shows its own engagement).
    func nextURI() throws -> String {
        while true {
            while let end = pending.firstIndex(of: UInt8(ascii: "\n")) {
                let line = String(decoding: pending[pending.startIndex..<end], as: UTF8.self)
                pending = Data(pending[(end + 1)...])
                if line.hasPrefix("mdoc:") { return line }
            }
            let data = output.availableData
            if data.isEmpty { throw BenchmarkError("mdoc-holder printed no mdoc: URI") }
            pending += data
        }
    }

    /// Waits up to 10 s for a `--once` holder to exit after its session.
    func waitForExit() async {
        for _ in 0..<100 where process.isRunning { try? await Task.sleep(for: .milliseconds(100)) }
    }

    func stop() {
        if process.isRunning { process.terminate() }
        process.waitUntilExit()
    }
}

import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// A TPM 2.0 simulator (Debian `swtpm`) on loopback, for the tpm2 secure-area tests: its state
/// in a directory of its own, so it can be stopped and started again on the same state (a
/// "reboot" that keeps the TPM's seeds, hence its keys).
public final class SoftwareTPM: @unchecked Sendable {
    public let stateDirectory: String
    public let port: Int
    private var running = false

    /// The TCTI string the tpm2 provider takes.
    public var tcti: String { "swtpm:host=127.0.0.1,port=\(port)" }

    /// Starts a fresh TPM. Throws when swtpm is not installed (`make test-deps` installs it) or
    /// does not start.
    public init() throws {
        stateDirectory = NSTemporaryDirectory() + "swtpm-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: stateDirectory, withIntermediateDirectories: true)
        var lastError = "no port tried"
        for _ in 0..<20 {
            let candidate = Int.random(in: 20000..<60000) & ~1
            if Self.launch(stateDirectory: stateDirectory, port: candidate) {
                port = candidate
                running = true
                return
            }
            lastError = "swtpm did not start on port \(candidate)"
        }
        throw SoftwareTPMError(
            "\(lastError): is swtpm installed (Tests/Support/install-deps.sh test installs swtpm and tpm2-openssl)?")
    }

    deinit {
        stop()
        try? FileManager.default.removeItem(atPath: stateDirectory)
    }

    private static func launch(stateDirectory: String, port: Int) -> Bool {
        guard FileManager.default.isExecutableFile(atPath: "/usr/bin/swtpm") else { return false }
        let status = ChildProcess.run([
            "/usr/bin/swtpm", "socket", "--tpm2", "--tpmstate", "dir=\(stateDirectory)",
            "--server", "type=tcp,port=\(port),bindaddr=127.0.0.1",
            "--ctrl", "type=tcp,port=\(port + 1),bindaddr=127.0.0.1",
            "--flags", "not-need-init,startup-clear", "--daemon", "--pid", "file=\(stateDirectory)/pid",
            "--log", "file=\(stateDirectory)/log",
        ])
        guard status == 0 else { return false }
        // The daemon listens before it forks away; wait for the port anyway.
        for _ in 0..<100 {
            if canConnect(port: port) { return true }
            usleep(20_000)
        }
        return false
    }

    private static func canConnect(port: Int) -> Bool {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { return false }
        defer { close(fd) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        return withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) == 0
            }
        }
    }

    /// Stops the TPM (SIGTERM, then waits for its port to close); its state stays.
    public func stop() {
        guard running else { return }
        running = false
        if let text = try? String(contentsOfFile: stateDirectory + "/pid", encoding: .utf8),
            let pid = pid_t(text.trimmingCharacters(in: .whitespacesAndNewlines))
        {
            kill(pid, SIGTERM)
            for _ in 0..<100 {
                if kill(pid, 0) != 0 { break }
                usleep(20_000)
            }
        }
    }

    /// Starts the TPM again on the same state and port.
    public func restart() throws {
        stop()
        guard Self.launch(stateDirectory: stateDirectory, port: port) else {
            throw SoftwareTPMError("swtpm did not start again on port \(port)")
        }
        running = true
    }
}

public struct SoftwareTPMError: Error, CustomStringConvertible {
    public var description: String
    public init(_ description: String) { self.description = description }
}

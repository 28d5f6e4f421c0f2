import Foundation

/// A private dbus-daemon for one test: its own socket in a temporary directory and an
/// allow-all policy. Stopped (and its directory removed) by ``stop()``; use ``with(_:)``.
public final class PrivateBus: Sendable {
    public let address: String
    public let pid: pid_t
    public let directory: URL

    private init(address: String, pid: pid_t, directory: URL) {
        self.address = address
        self.pid = pid
        self.directory = directory
    }

    public static func start() throws -> PrivateBus {
        let directory = FileManager.default.temporaryDirectory
            .appendingPathComponent("dbus-test-\(UUID().uuidString.prefix(8))")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let config = directory.appendingPathComponent("bus.conf")
        try """
        <!DOCTYPE busconfig PUBLIC "-//freedesktop//DTD D-Bus Bus Configuration 1.0//EN"
         "http://www.freedesktop.org/standards/dbus/1.0/busconfig.dtd">
        <busconfig>
          <type>session</type>
          <listen>unix:path=\(directory.path)/bus</listen>
          <auth>EXTERNAL</auth>
          <policy context="default">
            <allow send_destination="*" eavesdrop="true"/>
            <allow eavesdrop="true"/>
            <allow own="*"/>
          </policy>
        </busconfig>
        """.write(to: config, atomically: true, encoding: .utf8)
        let outputURL = directory.appendingPathComponent("address")
        guard
            let status = ChildProcess.run(
                [
                    "/usr/bin/dbus-daemon", "--config-file=\(config.path)", "--fork", "--print-address=1",
                    "--print-pid=1",
                ],
                stdout: outputURL.path)
        else { throw BusError.startFailed }
        let lines = try String(contentsOf: outputURL, encoding: .utf8).split(separator: "\n").map(String.init)
        guard status == 0, lines.count >= 2, let pid = pid_t(lines[1]) else {
            throw BusError.startFailed
        }
        return PrivateBus(address: lines[0], pid: pid, directory: directory)
    }

    public func stop() {
        kill(pid, SIGTERM)
        // The daemon unlinks its socket as it exits: remove the directory after that.
        for _ in 0..<200 where kill(pid, 0) == 0 { usleep(10_000) }
        try? FileManager.default.removeItem(at: directory)
    }

    /// Runs `body` with a fresh bus, stopping it afterwards whatever happens.
    public static func with<T>(_ body: (PrivateBus) async throws -> T) async throws -> T {
        let bus = try await ChildProcess.offPool { try start() }
        do {
            let result = try await body(bus)
            try? await ChildProcess.offPool { bus.stop() }
            return result
        } catch {
            try? await ChildProcess.offPool { bus.stop() }
            throw error
        }
    }

    public enum BusError: Error {
        case startFailed
    }
}

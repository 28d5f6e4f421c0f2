import Foundation

/// A private dbus-daemon for one test: its own socket in a temporary directory and an
/// allow-all policy. Stopped (and its directory removed) by ``stop()``; use ``with(_:)``.
final class PrivateBus: Sendable {
    let address: String
    let pid: pid_t
    let directory: URL

    private init(address: String, pid: pid_t, directory: URL) {
        self.address = address
        self.pid = pid
        self.directory = directory
    }

    static func start() throws -> PrivateBus {
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
        let status = try spawnAndWait(
            ["/usr/bin/dbus-daemon", "--config-file=\(config.path)", "--fork", "--print-address=1", "--print-pid=1"],
            stdout: outputURL.path)
        let lines = try String(contentsOf: outputURL, encoding: .utf8).split(separator: "\n").map(String.init)
        guard status == 0, lines.count >= 2, let pid = pid_t(lines[1]) else {
            throw BusError.startFailed
        }
        return PrivateBus(address: lines[0], pid: pid, directory: directory)
    }

    func stop() {
        kill(pid, SIGTERM)
        // The daemon unlinks its socket as it exits: remove the directory after that.
        for _ in 0..<200 where kill(pid, 0) == 0 { usleep(10_000) }
        try? FileManager.default.removeItem(at: directory)
    }

    /// Runs `work` on a thread of its own: blocking in `waitpid` on the cooperative pool
    /// (two threads on two cores) would stall every other test running in parallel.
    static func offPool<T: Sendable>(_ work: @escaping @Sendable () throws -> T) async throws -> T {
        try await withCheckedThrowingContinuation { continuation in
            Thread { continuation.resume(with: Result { try work() }) }.start()
        }
    }

    /// Runs `body` with a fresh bus, stopping it afterwards whatever happens.
    static func with<T>(_ body: (PrivateBus) async throws -> T) async throws -> T {
        let bus = try await offPool { try start() }
        do {
            let result = try await body(bus)
            try? await offPool { bus.stop() }
            return result
        } catch {
            try? await offPool { bus.stop() }
            throw error
        }
    }

    /// posix_spawn + waitpid, stdout to a file (the forked daemon keeps it open for good, so
    /// no pipe), with an empty signal mask (test threads block SIGTERM, and children inherit
    /// the mask).
    static func spawnAndWait(_ argv: [String], stdout path: String) throws -> Int32 {
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 1, path, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        var mask = sigset_t()
        sigemptyset(&mask)
        posix_spawnattr_setsigmask(&attributes, &mask)
        var defaults = sigset_t()
        sigemptyset(&defaults)
        sigaddset(&defaults, SIGTERM)
        sigaddset(&defaults, SIGINT)
        posix_spawnattr_setsigdefault(&attributes, &defaults)
        posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF))
        var cArgs = argv.map { strdup($0) } + [nil]
        defer { for arg in cArgs { free(arg) } }
        var pid: pid_t = 0
        let rc = posix_spawn(&pid, argv[0], &actions, &attributes, &cArgs, environ)
        guard rc == 0 else { throw BusError.startFailed }
        var status: Int32 = 0
        while waitpid(pid, &status, 0) < 0 && errno == EINTR {}
        return (status >> 8) & 0xFF
    }

    enum BusError: Error {
        case startFailed
    }
}

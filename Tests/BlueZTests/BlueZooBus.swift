import Foundation
import Testing

/// A private bus with BlueZoo on it (Tests/Support/bluezoo-bus.sh), for one test: hci0 is
/// 00:00:00:00:AA:01, hci1 is 00:00:00:00:BB:02, both powered. The address goes to the code
/// under test as a parameter (tests run in parallel; the environment is shared).
final class BlueZooBus: Sendable {
    let address: String
    let directory: String

    static let repositoryRoot = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent().path
    static let script = repositoryRoot + "/Tests/Support/bluezoo-bus.sh"
    static let bluezoo = repositoryRoot + "/.venv-test/bin/bluezoo"

    struct Failure: Error, CustomStringConvertible {
        let description: String
    }

    private init(address: String, directory: String) {
        self.address = address
        self.directory = directory
    }

    /// Starts a bus and BlueZoo. A missing BlueZoo is a failure, not a skip.
    static func start() throws -> BlueZooBus {
        guard FileManager.default.isExecutableFile(atPath: bluezoo) else {
            throw Failure(description: "BlueZoo is not installed at \(bluezoo): run `make test-deps`")
        }
        let directory = FileManager.default.temporaryDirectory
            .appendingPathComponent("bluezoo-\(UUID().uuidString.prefix(8))").path
        let status = try run([script, "start", directory])
        guard status == 0, let address = try? String(contentsOfFile: directory + "/address", encoding: .utf8) else {
            let log = (try? String(contentsOfFile: directory + "/bluezoo.log", encoding: .utf8)) ?? ""
            _ = try? run([script, "stop", directory])
            throw Failure(description: "bluezoo-bus.sh start failed (\(status)): \(log)")
        }
        return BlueZooBus(address: address.trimmingCharacters(in: .whitespacesAndNewlines), directory: directory)
    }

    /// BlueZoo stops and starts again, as bluetoothd does on a restart.
    func restartMock() async throws {
        let script = Self.script
        let directory = self.directory
        let status = try await Self.offPool { try Self.run([script, "restart-mock", directory]) }
        guard status == 0 else { throw Failure(description: "bluezoo-bus.sh restart-mock failed (\(status))") }
    }

    /// BlueZoo stops (bluetoothd not running); the bus stays.
    func stopMock() async throws {
        let script = Self.script
        let directory = self.directory
        let status = try await Self.offPool { try Self.run([script, "stop-mock", directory]) }
        guard status == 0 else { throw Failure(description: "bluezoo-bus.sh stop-mock failed (\(status))") }
    }

    func stop() {
        _ = try? Self.run([Self.script, "stop", directory])
    }

    /// Runs `work` on a thread of its own: blocking in `waitpid` on the cooperative pool
    /// (two threads on two cores) would stall every other test running in parallel.
    static func offPool<T: Sendable>(_ work: @escaping @Sendable () throws -> T) async throws -> T {
        try await withCheckedThrowingContinuation { continuation in
            Thread { continuation.resume(with: Result { try work() }) }.start()
        }
    }

    /// Runs `body` with a fresh bus and mock, stopping them afterwards whatever happens.
    static func with<T>(_ body: (BlueZooBus) async throws -> T) async throws -> T {
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

    /// posix_spawn + waitpid with an empty signal mask (test threads block SIGTERM and
    /// children inherit the mask, which would make the mock unkillable); stdout discarded.
    static func run(_ argv: [String]) throws -> Int32 {
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 1, "/dev/null", O_WRONLY, 0)
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
        sigaddset(&defaults, SIGPIPE)
        posix_spawnattr_setsigdefault(&attributes, &defaults)
        posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF))
        var cArgs = ["/bin/bash"] + argv
        var pointers = cArgs.map { strdup($0) } + [nil]
        defer { for pointer in pointers { free(pointer) } }
        cArgs.removeAll()
        var pid: pid_t = 0
        guard posix_spawn(&pid, "/bin/bash", &actions, &attributes, &pointers, environ) == 0 else {
            throw Failure(description: "could not run \(argv.first ?? "")")
        }
        var status: Int32 = 0
        while waitpid(pid, &status, 0) < 0 && errno == EINTR {}
        return (status >> 8) & 0xFF
    }
}

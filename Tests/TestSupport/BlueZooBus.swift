import Foundation

/// A private bus with BlueZoo on it (Tests/Support/bluezoo-bus.sh), for one test: hci0 is
/// 00:00:00:00:AA:01, hci1 is 00:00:00:00:BB:02, both powered. The address goes to the code
/// under test as a parameter (tests run in parallel; the environment is shared).
public final class BlueZooBus: Sendable {
    public let address: String
    public let directory: String

    static let repositoryRoot = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent().path
    static let script = repositoryRoot + "/Tests/Support/bluezoo-bus.sh"
    static let bluezoo = repositoryRoot + "/.venv-test/bin/bluezoo"

    public struct Failure: Error, CustomStringConvertible {
        public let description: String
        public init(description: String) { self.description = description }
    }

    private init(address: String, directory: String) {
        self.address = address
        self.directory = directory
    }

    /// Starts a bus and BlueZoo. A missing BlueZoo is a failure, not a skip.
    public static func start() throws -> BlueZooBus {
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
    public func restartMock() async throws {
        let script = Self.script
        let directory = self.directory
        let status = try await ChildProcess.offPool { try Self.run([script, "restart-mock", directory]) }
        guard status == 0 else { throw Failure(description: "bluezoo-bus.sh restart-mock failed (\(status))") }
    }

    /// BlueZoo stops (bluetoothd not running); the bus stays.
    public func stopMock() async throws {
        let script = Self.script
        let directory = self.directory
        let status = try await ChildProcess.offPool { try Self.run([script, "stop-mock", directory]) }
        guard status == 0 else { throw Failure(description: "bluezoo-bus.sh stop-mock failed (\(status))") }
    }

    public func stop() {
        _ = try? Self.run([Self.script, "stop", directory])
    }

    /// Runs `body` with a fresh bus and mock, stopping them afterwards whatever happens.
    public static func with<T>(_ body: (BlueZooBus) async throws -> T) async throws -> T {
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

    /// Runs `bash ARGV...`; stdout discarded.
    static func run(_ argv: [String]) throws -> Int32 {
        guard let status = ChildProcess.run(["/bin/bash"] + argv) else {
            throw Failure(description: "could not run \(argv.first ?? "")")
        }
        return status
    }
}

import DBus
import Foundation
import Testing

/// The thread each connection runs on.
struct DBusEventLoopTests {
    /// Every connection's thread is called "dbus-loop" (ps, top, `make bench-idle`'s thread
    /// list), not the name of the Dispatch worker that created it.
    @Test func eachConnectionsThreadIsNamed() async throws {
        try await DBusConnectionTests.withPair { _, _ in
            let tasks = try FileManager.default.contentsOfDirectory(atPath: "/proc/self/task")
            let names = tasks.compactMap { try? String(contentsOfFile: "/proc/self/task/\($0)/comm", encoding: .utf8) }
            // Two connections are open here; other tests running beside may hold more.
            #expect(names.filter { $0 == "dbus-loop\n" }.count >= 2)
        }
    }
}

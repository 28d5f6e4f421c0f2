import Foundation
import JOSE

/// The JSON object a loopback peer of Tests/Support writes to its `--ready-file` once it
/// listens (its port, and what else it made), or nil when `process` ends or `seconds` pass first.
func readyObject(at file: URL, of process: Process, seconds: Double) async throws -> [String: JSONValue]? {
    let deadline = Date().addingTimeInterval(seconds)
    while Date() < deadline {
        if let data = FileManager.default.contents(atPath: file.path),
            let object = try? JSONValue(parsing: [UInt8](data)).objectValue
        {
            return object
        }
        guard process.isRunning else { return nil }
        try await Task.sleep(for: .milliseconds(50))
    }
    return nil
}

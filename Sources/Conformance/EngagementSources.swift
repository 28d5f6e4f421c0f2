import Foundation
import Synchronization

/// Where each case's fresh engagement comes from: a command run before each case, or a
/// person pasting (or scanning) the next URI.
public enum EngagementSources {
    /// Runs `command` with `/bin/sh -c` (MDOC_CONFORMANCE_CASE names the case) and takes the
    /// first line of its standard output that starts with `mdoc:`. The command may leave a
    /// holder running: reading stops at that line, not at the end of its output.
    public static func command(_ command: String) -> ConformanceRunner.EngagementSource {
        { conformanceCase in
            try await onThread { try runCommand(command, caseID: conformanceCase.id) }
        }
    }

    /// Asks on standard error for the next URI, naming the case (and saying when the holder's
    /// user must approve), and reads it from standard input. `first` answers the first case.
    public static func interactive(first: String?) -> ConformanceRunner.EngagementSource {
        let pending = PendingURI(first)
        return { conformanceCase in
            if let uri = pending.take() { return uri }
            let consent = conformanceCase.needsConsent ? " (approve the request on the holder)" : ""
            FileHandle.standardError.write(
                Data("case \(conformanceCase.id): \(conformanceCase.title)\(consent)\nnext mdoc: URI: ".utf8))
            guard let line = try await onThread({ readLine() }) else { throw EngagementSourceError.noInput }
            return line
        }
    }

    static func runCommand(_ command: String, caseID: String) throws -> String {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/bin/sh")
        process.arguments = ["-c", command]
        var environment = ProcessInfo.processInfo.environment
        environment["MDOC_CONFORMANCE_CASE"] = caseID
        process.environment = environment
        let pipe = Pipe()
        process.standardOutput = pipe
        try process.run()
        var output = Data()
        while true {
            let data = pipe.fileHandleForReading.availableData
            output += data
            let text = String(decoding: output, as: UTF8.self)
            let complete = data.isEmpty ? text : String(text[..<(text.lastIndex(of: "\n") ?? text.startIndex)])
            if let uri = complete.split(separator: "\n").first(where: { $0.hasPrefix("mdoc:") }) {
                return String(uri)
            }
            if data.isEmpty { break }
        }
        process.waitUntilExit()
        throw EngagementSourceError.noURI(command: command, status: process.terminationStatus)
    }

    /// Runs blocking `work` off the cooperative pool.
    static func onThread<T: Sendable>(_ work: @escaping @Sendable () throws -> T) async throws -> T {
        try await withCheckedThrowingContinuation { continuation in
            Thread.detachNewThread { continuation.resume(with: Result { try work() }) }
        }
    }
}

/// Why no engagement came.
public enum EngagementSourceError: Error, CustomStringConvertible {
    case noURI(command: String, status: Int32)
    case noInput

    public var description: String {
        switch self {
        case .noURI(let command, let status): return "`\(command)` printed no mdoc: URI (exit status \(status))"
        case .noInput: return "standard input ended"
        }
    }
}

/// The URI given on the command line, for the first case only.
final class PendingURI: Sendable {
    private let uri: Mutex<String?>
    init(_ uri: String?) { self.uri = Mutex(uri) }
    func take() -> String? {
        uri.withLock { value in
            defer { value = nil }
            return value
        }
    }
}

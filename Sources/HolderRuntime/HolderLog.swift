/// One line a holder logs about its sessions: damaged credential rows, what a session did.
/// Names doc types, element identifiers and requesters; never a value, key or secret. The
/// adapter renders it: the command line on standard error, the service in its log with the
/// session's id.
public struct HolderLogLine: Sendable, Hashable {
    public enum Level: Sendable, Hashable {
        case warning, info
    }

    public var level: Level
    public var text: String

    public init(_ level: Level, _ text: String) {
        self.level = level
        self.text = text
    }
}

/// Where a holder's lines go.
public typealias HolderLog = @Sendable (HolderLogLine) -> Void

extension HolderLogLine {
    /// The line as the command line prints it on standard error: a warning after the
    /// program's name, a session's description after "session:".
    public var consoleText: String {
        switch level {
        case .warning: "mdoc-holder: \(text)"
        case .info: "session: \(text)"
        }
    }

    /// The line as the service logs it for session `id`.
    public func serviceText(session id: UInt64) -> String { "session \(id): \(text)" }
}

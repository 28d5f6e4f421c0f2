import BoundedFile
import FoundationEssentials
import HolderRuntime
import PrintableText

/// The service's log on standard error, one line per event. Under systemd (JOURNAL_STREAM
/// set) each line starts with its syslog priority (`<3>` error … `<7>` debug), which journald
/// reads as the entry's priority. Lines name sessions, adapters, doc types, element
/// identifiers and requester names (escaped by ``oneLine(_:)``); never claim values, keys or
/// session secrets.
public struct ServiceLog: Sendable {
    public enum Priority: Int, Sendable {
        case error = 3
        case warning = 4
        case notice = 5
        case info = 6
        case debug = 7
    }

    /// Whether lines carry `<N>` priority prefixes.
    public let journal: Bool
    private let sink: @Sendable (String) -> Void

    /// Logs to standard error; prefixes when JOURNAL_STREAM is set in `environment`. A line
    /// standard error does not take (a closed terminal answers EIO) is dropped, not a crash.
    public init(environment: [String: String] = ProcessInfo.processInfo.environment) {
        self.init(journal: environment["JOURNAL_STREAM"] != nil) { line in
            DescriptorWrite.all(Array(line.utf8), to: 2)
        }
    }

    /// Logs to `sink` (tests).
    public init(journal: Bool, sink: @escaping @Sendable (String) -> Void) {
        self.journal = journal
        self.sink = sink
    }

    public func log(_ priority: Priority, _ message: String) {
        let text = Self.oneLine(message)
        sink(journal ? "<\(priority.rawValue)>\(text)\n" : "mdoc-holder: \(text)\n")
    }

    public func error(_ message: String) { log(.error, message) }
    public func warning(_ message: String) { log(.warning, message) }
    public func notice(_ message: String) { log(.notice, message) }
    public func info(_ message: String) { log(.info, message) }

    /// A holder's line (HolderRuntime), after "session ID:" when it is about one session.
    public func holderLine(_ line: HolderLogLine, session id: UInt64? = nil) {
        let text = id.map { line.serviceText(session: $0) } ?? line.text
        log(line.level == .warning ? .warning : .info, text)
    }

    /// The longest line logged, in characters; longer messages are cut (they may carry text
    /// from outside: a requester's name, a caller's option).
    static let lineLimit = 2048

    /// `text` on one line through ``RemoteText`` (a requester's chosen name, a doc type or a
    /// certificate name may hold control characters, escape sequences, bidirectional controls,
    /// newlines: they are shown escaped), so one event is one journal entry that cannot drive the
    /// terminal reading it; at most ``lineLimit`` characters. Every line the service logs passes
    /// here.
    static func oneLine(_ text: String) -> String {
        RemoteText.printable(text, limit: lineLimit)
    }
}

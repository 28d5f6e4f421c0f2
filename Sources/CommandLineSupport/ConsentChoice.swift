/// The `--consent` option of `present`, `present-online` and `serve`: who answers requests.
public enum ConsentChoice: Sendable, Hashable {
    /// A prompt on the controlling terminal.
    case tty
    /// The registered D-Bus consent agent (`serve`).
    case agent
    /// A policy file (docs/kiosk-policy.md).
    case policy(path: String)

    /// The kinds a command accepts.
    public enum Kind: String, Sendable, CaseIterable {
        case tty, agent, policy
    }

    /// Reads `text` as one of `allowed` ("tty", "agent", "policy:FILE").
    public init(parsing text: String, allowed: [Kind]) throws(CommandLineError) {
        // Made only for the error: joining the names costs the Swift runtime type lookups at the
        // start of every `present` (docs/benchmarks.md, "The seventeenth session").
        func refusal() -> CommandLineError {
            let usage = allowed.map { $0 == .policy ? "policy:FILE" : $0.rawValue }.joined(separator: " or ")
            return CommandLineError("--consent must be \(usage)")
        }
        if text.hasPrefix("policy:"), allowed.contains(.policy) {
            let path = String(text.dropFirst("policy:".count))
            guard !path.isEmpty else { throw refusal() }
            self = .policy(path: path)
        } else if text == "tty", allowed.contains(.tty) {
            self = .tty
        } else if text == "agent", allowed.contains(.agent) {
            self = .agent
        } else {
            throw refusal()
        }
    }
}

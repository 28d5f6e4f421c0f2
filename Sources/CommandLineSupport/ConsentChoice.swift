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
        let usage = allowed.map { $0 == .policy ? "policy:FILE" : $0.rawValue }.joined(separator: " or ")
        if text.hasPrefix("policy:"), allowed.contains(.policy) {
            let path = String(text.dropFirst("policy:".count))
            guard !path.isEmpty else { throw CommandLineError("--consent must be \(usage)") }
            self = .policy(path: path)
        } else if text == "tty", allowed.contains(.tty) {
            self = .tty
        } else if text == "agent", allowed.contains(.agent) {
            self = .agent
        } else {
            throw CommandLineError("--consent must be \(usage)")
        }
    }
}

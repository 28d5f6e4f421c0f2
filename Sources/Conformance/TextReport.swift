/// The report a person reads: one line per case, the evidence of failures indented under
/// their line, and the summary.
public enum TextReport {
    /// The case's line, and for a failure its evidence.
    public static func lines(_ result: CaseResult) -> [String] {
        guard result.verdict == .fail else { return [result.line] }
        return [result.line] + result.evidence.map { "    " + line($0) }
    }

    public static func render(_ results: [CaseResult]) -> String {
        (results.flatMap(lines) + [ConformanceSummary(results).line]).joined(separator: "\n") + "\n"
    }

    static func line(_ entry: EvidenceEntry) -> String {
        var text = "+\(entry.milliseconds) ms \(entry.what)"
        if let count = entry.byteCount {
            text += " (\(count) bytes)"
            if let hex = entry.hex { text += ": \(hex)" + (count > EvidenceLog.hexLimit ? "..." : "") }
        }
        return text
    }
}

import Foundation

/// What one case concluded.
public enum CaseVerdict: String, Sendable, Hashable, Codable {
    case pass = "PASS"
    case fail = "FAIL"
    case skip = "SKIP"
}

/// How a case stops short of passing: it failed (the holder did not do what the standard
/// says), or it could not run here (the holder or the options do not allow it).
public enum CaseStop: Error, Sendable, Hashable {
    case fail(String)
    case skip(String)
}

/// One case's result: the verdict, the reason in words, its evidence and how long it took.
public struct CaseResult: Sendable {
    public let id: String
    public let title: String
    public let verdict: CaseVerdict
    public let reason: String
    /// What was sent and received, with timings; kept for every verdict, shown for failures.
    public let evidence: [EvidenceEntry]
    public let duration: Duration

    public init(
        id: String, title: String, verdict: CaseVerdict, reason: String, evidence: [EvidenceEntry],
        duration: Duration
    ) {
        self.id = id
        self.title = title
        self.verdict = verdict
        self.reason = reason
        self.evidence = evidence
        self.duration = duration
    }

    /// The report's line: `PASS|FAIL|SKIP <id> <reason>`.
    public var line: String { "\(verdict.rawValue) \(id) \(reason)" }

    /// Seconds, for the reports.
    public var seconds: Double { duration / .seconds(1) }
}

/// The counts of a run.
public struct ConformanceSummary: Sendable, Hashable {
    public var passed = 0
    public var failed = 0
    public var skipped = 0

    public init(_ results: [CaseResult]) {
        for result in results {
            switch result.verdict {
            case .pass: passed += 1
            case .fail: failed += 1
            case .skip: skipped += 1
            }
        }
    }

    /// `conformance: N passed, N failed, N skipped`.
    public var line: String { "conformance: \(passed) passed, \(failed) failed, \(skipped) skipped" }
}

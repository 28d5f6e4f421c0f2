import Foundation

/// The report as JSON: the summary and every case with its evidence.
public enum JSONReport {
    struct Report: Encodable {
        var passed: Int
        var failed: Int
        var skipped: Int
        var cases: [Case]
    }

    struct Case: Encodable {
        var id: String
        var title: String
        var verdict: String
        var reason: String
        var seconds: Double
        var evidence: [Entry]
    }

    struct Entry: Encodable {
        var milliseconds: Int
        var what: String
        var bytes: Int?
        var hex: String?
    }

    public static func render(_ results: [CaseResult]) throws -> String {
        let summary = ConformanceSummary(results)
        let report = Report(
            passed: summary.passed, failed: summary.failed, skipped: summary.skipped,
            cases: results.map { result in
                Case(
                    id: result.id, title: result.title, verdict: result.verdict.rawValue, reason: result.reason,
                    seconds: (result.seconds * 1000).rounded() / 1000,
                    evidence: result.evidence.map {
                        Entry(milliseconds: $0.milliseconds, what: $0.what, bytes: $0.byteCount, hex: $0.hex)
                    })
            })
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        return String(decoding: try encoder.encode(report), as: UTF8.self)
    }
}

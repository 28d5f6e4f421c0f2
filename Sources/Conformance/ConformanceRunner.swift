import Foundation
import ISO18013
import ProximityReader

/// Runs cases one after the other, each against a fresh engagement.
public struct ConformanceRunner: Sendable {
    /// The next engagement's `mdoc:` URI for a case (runs `--uri-command`, or asks).
    public typealias EngagementSource = @Sendable (ConformanceCase) async throws -> String

    public var settings: ConformanceSettings
    public var reader: ProximityReader
    public var engagements: EngagementSource
    /// The bound on a whole case (on top of its own bounds, for a holder that hangs a link).
    public var caseTimeout: Duration = .seconds(120)

    public init(settings: ConformanceSettings, reader: ProximityReader, engagements: @escaping EngagementSource) {
        self.settings = settings
        self.reader = reader
        self.engagements = engagements
    }

    /// Runs `cases`, handing each result to `report` as it comes.
    public func run(_ cases: [ConformanceCase], report: @Sendable (CaseResult) -> Void = { _ in }) async
        -> [CaseResult]
    {
        var results: [CaseResult] = []
        for conformanceCase in cases {
            let result = await run(conformanceCase)
            report(result)
            results.append(result)
        }
        return results
    }

    /// One case: a fresh engagement, then its body under ``caseTimeout``.
    public func run(_ conformanceCase: ConformanceCase) async -> CaseResult {
        let evidence = EvidenceLog()
        let start = ContinuousClock.now
        func result(_ verdict: CaseVerdict, _ reason: String) -> CaseResult {
            CaseResult(
                id: conformanceCase.id, title: conformanceCase.title, verdict: verdict, reason: reason,
                evidence: evidence.all, duration: ContinuousClock.now - start)
        }
        let engagement: DeviceEngagement
        do {
            let uri = try await engagements(conformanceCase).trimmingCharacters(in: .whitespacesAndNewlines)
            engagement = try DeviceEngagement(uri: uri)
        } catch {
            return result(.skip, "no engagement: \(error)")
        }
        let context = CaseContext(engagement: engagement, settings: settings, reader: reader, evidence: evidence)
        switch await Self.bounded(
            caseTimeout,
            { () async throws(CaseStop) -> String in
                try await conformanceCase.body(context)
            })
        {
        case .success(let reason): return result(.pass, reason)
        case .failure(.fail(let reason)): return result(.fail, reason)
        case .failure(.skip(let reason)): return result(.skip, reason)
        case nil: return result(.fail, "the case did not finish within \(caseTimeout)")
        }
    }

    /// `body`'s result, or nil when `bound` passed first (the body is then cancelled).
    static func bounded(_ bound: Duration, _ body: @escaping @Sendable () async throws(CaseStop) -> String) async
        -> Result<String, CaseStop>?
    {
        await withTaskGroup(of: Result<String, CaseStop>?.self) { group in
            group.addTask {
                do throws(CaseStop) {
                    return .success(try await body())
                } catch {
                    return .failure(error)
                }
            }
            group.addTask {
                try? await Task.sleep(for: bound)
                return nil
            }
            let first = await group.next() ?? nil
            group.cancelAll()
            return first
        }
    }
}

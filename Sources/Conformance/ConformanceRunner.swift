import Foundation
import ISO18013
import ProximityReader
import Synchronization

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
        let uri: String
        do {
            uri = try await engagements(conformanceCase).trimmingCharacters(in: .whitespacesAndNewlines)
            engagement = try DeviceEngagement(uri: uri)
        } catch {
            return result(.skip, "no engagement: \(error)")
        }
        let context = CaseContext(
            engagement: engagement, uri: uri, settings: settings, reader: reader, evidence: evidence)
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

    /// `body`'s result, or nil when `bound` passed first. The body is then cancelled and
    /// not waited for: a call that ignores cancellation cannot hold the run.
    static func bounded<T: Sendable>(
        _ bound: Duration, _ body: @escaping @Sendable () async throws(CaseStop) -> T
    ) async -> Result<T, CaseStop>? {
        let waiter = Mutex<CheckedContinuation<Result<T, CaseStop>?, Never>?>(nil)
        let tasks = Mutex<[Task<Void, Never>]>([])
        let finish: @Sendable (Result<T, CaseStop>?) -> Void = { result in
            waiter.withLock { $0.take() }?.resume(returning: result)
            for task in tasks.withLock({ $0 }) { task.cancel() }
        }
        return await withCheckedContinuation { continuation in
            waiter.withLock { $0 = continuation }
            let work = Task {
                do throws(CaseStop) {
                    finish(.success(try await body()))
                } catch {
                    finish(.failure(error))
                }
            }
            let timer = Task {
                guard (try? await Task.sleep(for: bound)) != nil else { return }
                finish(nil)
            }
            tasks.withLock { $0 = [work, timer] }
            // Finished before the tasks were recorded: nothing cancelled them.
            if waiter.withLock({ $0 == nil }) {
                work.cancel()
                timer.cancel()
            }
        }
    }
}

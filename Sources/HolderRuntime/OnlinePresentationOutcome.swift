import OnlineFlows
import OnlineTransport
import Presentation

/// What one online presentation came to: the flow's outcome, its one-line description and
/// its classification.
public struct OnlinePresentationOutcome: Sendable {
    public var outcome: OnlineOutcome

    public init(_ outcome: OnlineOutcome) { self.outcome = outcome }

    public var classification: SessionClassification {
        switch outcome.result {
        case .sent: .completed
        case .declined: .declined
        case .refused(let problem): .failed("refused: \(problem.code.rawValue)")
        case .rejectedByVerifier(let status): .failed("the verifier rejected the response (HTTP \(status))")
        }
    }

    /// The presentation in one line: what went to whom (``PresentationRecord/summary``), or
    /// why nothing did and whether the verifier was told.
    public var description: String {
        switch outcome.result {
        case .sent:
            return outcome.records.map(\.summary).joined(separator: "; ")
        case .declined:
            let parts = outcome.records.map(\.summary)
            let told = outcome.reportedToVerifier ? " (the verifier was told: access_denied)" : ""
            return (parts.isEmpty ? "declined" : parts.joined(separator: "; ")) + told
        case .refused(let error):
            let reported =
                outcome.reportedToVerifier
                ? "the verifier was told"
                : (outcome.requester == nil ? "not reported: the request's origin is not proven" : "not reported")
            return "refused: \(error.code.rawValue): \(error.description) (\(reported))"
        case .rejectedByVerifier(let status):
            return "the verifier did not accept the response (HTTP \(status))"
        }
    }
}

import OnlineFlows
import OnlineTransport

/// What one issuance (or the resumption of the pending ones) came to: the flow's outcome,
/// its one-line description and its classification.
public struct ReceiveOutcome: Sendable {
    public var outcome: CredentialIssuance.Outcome

    public init(_ outcome: CredentialIssuance.Outcome) { self.outcome = outcome }

    /// Completed when everything offered was stored, pending when some of it was kept
    /// pending, declined when consent was refused, failed when a pending issuance ended
    /// without a credential.
    public var classification: SessionClassification {
        switch outcome.result {
        case .declined: return .declined
        case .received:
            if !outcome.failures.isEmpty { return .failed(outcome.failures.joined(separator: "; ")) }
            return outcome.pending.isEmpty ? .completed : .pending
        }
    }

    public var description: String {
        switch outcome.result {
        case .declined:
            return "the offer of \(outcome.issuerName) was declined: nothing was requested from the issuer"
        case .received(let ids):
            var parts = ["stored \(ids.count) credential\(ids.count == 1 ? "" : "s")"]
            if !outcome.issuerName.isEmpty { parts[0] += " from \(outcome.issuerName)" }
            if !outcome.pending.isEmpty { parts.append("\(outcome.pending.count) kept pending") }
            if !outcome.failures.isEmpty { parts.append("\(outcome.failures.count) failed") }
            return parts.joined(separator: "; ")
        }
    }
}

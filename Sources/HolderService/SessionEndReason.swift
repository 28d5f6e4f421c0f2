import BLETransport
import OnlineTransport
import Presentation
import Proximity

/// The `reason` of the Ended signal: completed, declined, cancelled, reader-ended,
/// disconnected, timeout, pending (an issuance kept pending), or "error: TEXT" (TEXT names
/// what failed, never a value).
enum SessionEndReason {
    static let cancelled = "cancelled"

    /// An issuance: completed when everything offered was stored, pending when some of it was
    /// deferred beyond the wait and kept pending, declined when consent was refused.
    static func issuance(_ outcome: CredentialIssuance.Outcome) -> String {
        switch outcome.result {
        case .declined: return "declined"
        case .received: return outcome.pending.isEmpty ? "completed" : "pending"
        }
    }

    static func error(_ text: String) -> String { "error: " + ServiceLog.oneLine(text) }

    static func proximity(_ result: ProximitySessionResult) -> String {
        // A session cut by the transport's bounds (ProximityTimeouts) that delivered nothing.
        if result.timedOut != nil, !result.isSuccess { return "timeout" }
        if result.responsesSent > 0 {
            if result.records.contains(where: { $0.outcome == .sent }) {
                return result.isSuccess ? "completed" : "disconnected"
            }
            return "declined"
        }
        switch result.holderEnd {
        case .consentTimeout?, .idleTimeout?: return "timeout"
        case .readerEnded?: return "reader-ended"
        case .sessionEncryptionError?, .decodingError?, .readerReportedError?, .messageTooLarge?,
            .unexpectedMessage?, .deviceKeyUnusable?:
            return error(result.holderEnd!.description)
        case .holderEnded?, .transportClosed?, nil: break
        }
        switch result.transportEnd {
        case .protocolError(let problem)?: return error("BLE protocol error: \(problem)")
        case .peerEnded?: return "reader-ended"
        case .disconnected?, .disconnectedAfterResponse?, .localEnded?, nil: return "disconnected"
        }
    }

    static func online(_ outcome: OnlineOutcome) -> String {
        switch outcome.result {
        case .sent: return "completed"
        case .declined: return "declined"
        case .refused(let problem): return error("refused: \(problem.code.rawValue)")
        case .rejectedByVerifier(let status): return error("the verifier rejected the response (HTTP \(status))")
        }
    }
}

import Presentation
import Proximity

/// What one proximity session came to: the loop's result, its one-line description and its
/// classification.
public struct ProximityOutcome: Sendable {
    public var result: ProximitySessionResult
    /// The history could not be written (the session's result stands).
    public var historyProblem: String?

    public init(_ result: ProximitySessionResult, historyProblem: String? = nil) {
        self.result = result
        self.historyProblem = historyProblem
    }

    public var classification: SessionClassification { Self.classify(result) }

    /// The session in one line: what went to whom (``PresentationRecord/summary``), how it
    /// ended, the BLE mode.
    public var description: String {
        let parts = result.records.map(\.summary)
        let mode = result.mode.map { " over \($0.rawValue) mode\(result.overL2CAP ? " (L2CAP)" : "")" } ?? ""
        return "\(parts.isEmpty ? "no request" : parts.joined(separator: "; ")) (\(result.endDescription))\(mode)"
    }

    /// Released when a response with at least one element was delivered; declined when one
    /// went out releasing nothing; else why no response was delivered: a key that could not
    /// be used (status 10), a bound of the transport, the reader, the link, an error.
    public static func classify(_ result: ProximitySessionResult) -> SessionClassification {
        if case .deviceKeyUnusable(let why)? = result.holderEnd { return .failed(why + " (status 10 sent)") }
        if result.timedOut != nil, !result.isSuccess { return .timeout }
        if result.responsesSent > 0 {
            let released = result.records.contains { $0.outcome == .sent && !$0.elementsSent.isEmpty }
            if released { return result.isSuccess ? .completed : .disconnected }
            if result.isSuccess { return .declined }
        }
        switch result.holderEnd {
        case .consentTimeout?, .idleTimeout?: return .timeout
        case .readerEnded?: return .readerEnded
        case .sessionEncryptionError?, .decodingError?, .readerReportedError?, .messageTooLarge?,
            .unexpectedMessage?, .deviceKeyUnusable?:
            return .failed(result.holderEnd!.description)
        case .holderEnded?, .transportClosed?, nil: break
        }
        switch result.transportEnd {
        case .protocolError(let problem)?: return .failed("BLE protocol error: \(problem)")
        case .peerEnded?: return .readerEnded
        case .disconnected?, .disconnectedAfterResponse?, .localEnded?, nil: return .disconnected
        }
    }
}

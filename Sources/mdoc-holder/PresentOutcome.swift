import Presentation
import Proximity

/// What one `present --once` session amounted to, and its exit status.
enum PresentOutcome: Equatable {
    /// A response with at least one element went out: exit 0.
    case released
    /// A response went out but released nothing (declined, untrusted reader, nothing held
    /// that was asked for): exit 2.
    case nothingReleased
    /// No response was delivered (the link dropped, a timeout, a protocol error): exit 1.
    case failed

    init(_ result: ProximitySessionResult) {
        guard result.isSuccess else {
            self = .failed
            return
        }
        let released = result.records.contains { $0.outcome == .sent && !$0.elementsSent.isEmpty }
        self = released ? .released : .nothingReleased
    }

    var exitCode: Int32 {
        switch self {
        case .released: 0
        case .nothingReleased: 2
        case .failed: 1
        }
    }
}

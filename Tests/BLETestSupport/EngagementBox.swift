import Synchronization

/// Hands the engagement from the holder's callback to the test's reader.
public final class EngagementBox: Sendable {
    private let value = Mutex<String?>(nil)

    public init() {}

    public func set(_ uri: String) { value.withLock { $0 = uri } }
    public func get() -> String? { value.withLock { $0 } }
}

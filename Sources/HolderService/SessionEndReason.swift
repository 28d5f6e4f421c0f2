import HolderRuntime

/// The `reason` of the Ended signal: completed, declined, cancelled, reader-ended,
/// disconnected, timeout, pending (an issuance kept pending), or "error: TEXT" (TEXT names
/// what failed, never a value). Each is the one ``SessionClassification`` of the holder's
/// outcome; only "cancelled" (a Cancel call, the service stopping) is the service's own.
enum SessionEndReason {
    static let cancelled = "cancelled"

    static func error(_ text: String) -> String { SessionClassification.error(text) }
}

/// Why a holder operation could not run at all (its outcome, when it ran, says how it ended).
public enum HolderRuntimeError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The store holds no credential valid now.
    case noCredential
    /// The store could not be read.
    case store(String)
    /// The proximity session could not start (the GATT service, the scan, the key).
    case proximity(String)
    /// The session was cancelled before its engagement was ready.
    case cancelled

    public var description: String {
        switch self {
        case .noCredential:
            "no valid credential in the store: import one with `mdoc-holder credentials import`"
        case .store(let text), .proximity(let text): text
        case .cancelled: "cancelled before the engagement was ready"
        }
    }
}

/// A stored row that cannot be read back (the file was altered outside this program, or a
/// disk error damaged it). The store keeps working around it: lists show it marked, presentation
/// uses the other credentials. The reason names the column, never its content. Only the store
/// finds one (the memberwise initializer is internal).
public struct UnreadableRow: Sendable, Hashable, Codable, CustomStringConvertible {
    /// A credential (its ID) or a history entry (its number).
    public enum Kind: String, Sendable, Hashable, Codable {
        case credential
        case historyEntry
    }

    public var kind: Kind
    /// The credential ID, or the history entry's number.
    public var id: String
    public var reason: String

    /// What to do about it.
    public var remedy: String {
        switch kind {
        case .credential:
            "delete it (`mdoc-holder credentials delete \(id)`) and import it again"
        case .historyEntry:
            "the other entries are intact; the store keeps working"
        }
    }

    public var description: String {
        switch kind {
        case .credential: "credential \(id) cannot be read (\(reason)): \(remedy)"
        case .historyEntry: "history entry \(id) cannot be read (\(reason)); \(remedy)"
        }
    }
}

import FoundationEssentials

/// The outcome of checking a credential's status.
public enum StatusCheck: Sendable, Equatable, CustomStringConvertible {
    /// A verified Status List Token gave this status at `checkedAt` (when the token was
    /// fetched or supplied).
    case known(CredentialStatus, checkedAt: Date)
    /// No verified status: the list could not be fetched, verified or read. `reason` is
    /// printable (outside text escaped) and carries no secret.
    case unknown(reason: String)

    /// The status, when known.
    public var status: CredentialStatus? {
        guard case .known(let status, _) = self else { return nil }
        return status
    }

    /// "valid", "invalid", "suspended", "other (0x03)" or "unknown".
    public var description: String { status.map(\.description) ?? "unknown" }
}

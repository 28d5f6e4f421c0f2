import FoundationEssentials
import TokenStatusList

/// What the issuer's Token Status List (draft-ietf-oauth-status-list) said of a credential the
/// last time the holder checked it, and when.
public struct LastKnownStatus: Sendable, Hashable, Codable {
    /// The status at the credential's index.
    public var status: CredentialStatus
    /// When the list that said so was checked.
    public var checkedAt: Date

    public init(_ status: CredentialStatus, checkedAt: Date) {
        self.status = status
        self.checkedAt = checkedAt
    }

    /// Whether the holder stops presenting the credential: its issuer revoked (INVALID) or
    /// suspended it. An application-specific or reserved value does not stop it (the holder
    /// cannot interpret it).
    public var withholdsPresentation: Bool { status.isRevokedOrSuspended }

    public static func == (a: Self, b: Self) -> Bool { a.status == b.status && a.checkedAt == b.checkedAt }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(status.rawValue)
        hasher.combine(checkedAt)
    }

    private enum CodingKeys: String, CodingKey { case status, value, checkedAt }

    /// `{"status": "invalid", "value": 1, "checkedAt": ...}`.
    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(status.description, forKey: .status)
        try c.encode(status.rawValue, forKey: .value)
        try c.encode(checkedAt, forKey: .checkedAt)
    }

    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        status = CredentialStatus(rawValue: try c.decode(UInt8.self, forKey: .value))
        checkedAt = try c.decode(Date.self, forKey: .checkedAt)
    }
}

/// A credential left out of a presentation because of its last known status: which one, and
/// why (for the log, the consent prompt and the history).
public struct WithheldCredential: Sendable, Hashable {
    public let id: String
    /// `mso_mdoc` or `dc+sd-jwt`.
    public let format: String
    /// The mdoc's docType, or the SD-JWT VC's `vct` (the issuer's text: escape it before a
    /// terminal or a log).
    public let docType: String
    public let status: LastKnownStatus

    public init(id: String, format: String, docType: String, status: LastKnownStatus) {
        self.id = id
        self.format = format
        self.docType = docType
        self.status = status
    }

    /// Why it is not presented, naming the credential by `name` (its escaped doc type):
    /// "credential ID (NAME) is not presented: its issuer's status list marks it invalid
    /// (checked at T)". No claim value.
    public func reason(name: String) -> String {
        let time = status.checkedAt.formatted(Date.ISO8601FormatStyle(timeZone: TimeZone(secondsFromGMT: 0)!))
        return "credential \(id) (\(name)) is not presented: its issuer's status list marks it \(status.status) "
            + "(checked at \(time))"
    }
}

/// The status of a Referenced Token, as its Status List records it
/// (draft-ietf-oauth-status-list section 7.1, Status Types).
public enum CredentialStatus: Sendable, Equatable, CustomStringConvertible {
    /// 0x00 VALID: the token is valid, correct or legal.
    case valid
    /// 0x01 INVALID: revoked, annulled, taken back, recalled or cancelled; never valid again.
    case invalid
    /// 0x02 SUSPENDED: temporarily invalid (it may become valid again).
    case suspended
    /// Any other value: 0x03 and 0x0C-0x0F are application-specific, the rest reserved.
    /// Neither valid nor revoked as far as this implementation knows.
    case other(UInt8)

    /// The status a list entry of this value means.
    public init(rawValue: UInt8) {
        switch rawValue {
        case 0: self = .valid
        case 1: self = .invalid
        case 2: self = .suspended
        default: self = .other(rawValue)
        }
    }

    /// The value stored in a Status List.
    public var rawValue: UInt8 {
        switch self {
        case .valid: return 0
        case .invalid: return 1
        case .suspended: return 2
        case .other(let value): return value
        }
    }

    /// Whether the draft reserves the value for applications (0x03, 0x0C-0x0F).
    public var isApplicationSpecific: Bool {
        guard case .other(let value) = self else { return false }
        return value == 3 || (0x0C...0x0F).contains(value)
    }

    /// Whether a credential with this status must not be accepted (revoked or suspended).
    public var isRevokedOrSuspended: Bool { self == .invalid || self == .suspended }

    /// "valid", "invalid", "suspended", or "other (0x03)".
    public var description: String {
        switch self {
        case .valid: return "valid"
        case .invalid: return "invalid"
        case .suspended: return "suspended"
        case .other(let value):
            let hex = String(value, radix: 16)
            return "other (0x\(hex.count < 2 ? "0" + hex : hex))"
        }
    }
}

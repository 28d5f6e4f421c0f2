/// How a request reached the holder.
public enum PresentationChannel: String, Sendable, Codable, Hashable, CaseIterable {
    /// ISO 18013-5 proximity presentation over Bluetooth LE.
    case ble
    /// OpenID4VP online presentation.
    case online
    /// OpenID4VCI issuance: an issuer offers credentials; the "requester" is the issuer and the
    /// "elements" are the claims the credential will hold.
    case issuance
}

/// How well the requester proved who it is.
public enum RequesterAuthentication: Sendable, Codable, Hashable {
    /// No reader authentication / an unsigned request.
    case unauthenticated
    /// A signature or certificate was present but did not verify.
    case invalid(reason: String)
    /// Verified, but not chained to a configured anchor (or outside the profile).
    case untrusted(reason: String)
    /// Verified and chained to the configured anchor with this subject.
    case trusted(anchor: String)

    public var isTrusted: Bool {
        if case .trusted = self { return true }
        return false
    }

    /// One line for prompts, logs and history.
    public var summary: String {
        switch self {
        case .unauthenticated: return "not authenticated"
        case .invalid(let r): return "authentication failed: \(r)"
        case .untrusted(let r): return "not trusted: \(r)"
        case .trusted(let anchor): return "trusted by \(anchor)"
        }
    }
}

/// Who is asking. Shown to the user, matched by policy, written to history.
public struct Requester: Sendable, Codable, Hashable {
    /// A short name: the reader certificate's common name, the verifier's client_name, ...
    public var displayName: String
    /// The reader certificate subject or the OpenID4VP client_id.
    public var identifier: String?
    public var authentication: RequesterAuthentication
    /// DER of the requester's certificate chain, leaf first (for `anchor:` policy rules).
    public var certificateChain: [[UInt8]]

    public init(
        displayName: String, identifier: String? = nil, authentication: RequesterAuthentication,
        certificateChain: [[UInt8]] = []
    ) {
        self.displayName = displayName
        self.identifier = identifier
        self.authentication = authentication
        self.certificateChain = certificateChain
    }
}

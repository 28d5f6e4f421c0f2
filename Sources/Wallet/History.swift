import Consent
import FoundationEssentials

/// What happened to one document request.
public enum HistoryDecision: Sendable, Hashable {
    /// The holder sent the elements listed in the entry.
    case sent
    /// The holder (or a policy) declined.
    case declined
    /// The presentation failed; `reason` says why in words, never with element values.
    case failed(reason: String)
    /// Issuance: the credential was received and stored.
    case received

    /// "sent", "declined" or "failed", as stored and printed.
    public var name: String {
        switch self {
        case .sent: return "sent"
        case .declined: return "declined"
        case .failed: return "failed"
        case .received: return "received"
        }
    }

    /// The failure reason, for `.failed`.
    public var reason: String? {
        if case .failed(let reason) = self { return reason }
        return nil
    }

    init?(name: String, reason: String?) {
        switch name {
        case "sent": self = .sent
        case "declined": self = .declined
        case "failed": self = .failed(reason: reason ?? "")
        case "received": self = .received
        default: return nil
        }
    }
}

/// One presentation, as the history keeps it: who asked, when, over which channel, how well
/// they were authenticated, and which elements went out. Never element values.
public struct HistoryEntry: Sendable, Hashable, Codable {
    public var time: Date
    public var channel: PresentationChannel
    public var requesterName: String
    /// Reader certificate subject or OpenID4VP client_id.
    public var requesterIdentifier: String?
    /// ``RequesterAuthentication/summary``.
    public var authentication: String
    public var docType: String
    /// "namespace:element" of each element sent (empty when declined or failed).
    public var elementsSent: [String]
    public var decision: HistoryDecision
    /// Issuance: how many copies were stored (nil for presentations).
    public var copies: Int?
    /// A second-edition request's use case this presentation answered, in words (nil when the
    /// request had none).
    public var useCase: String?

    public init(
        time: Date = Date(), channel: PresentationChannel, requesterName: String, requesterIdentifier: String?,
        authentication: String, docType: String, elementsSent: [String], decision: HistoryDecision,
        copies: Int? = nil, useCase: String? = nil
    ) {
        self.copies = copies
        self.useCase = useCase
        self.time = time
        self.channel = channel
        self.requesterName = requesterName
        self.requesterIdentifier = requesterIdentifier
        self.authentication = authentication
        self.docType = docType
        self.elementsSent = elementsSent
        self.decision = decision
    }

    /// An entry from the consent types the presentation flows use.
    public init(
        time: Date = Date(), channel: PresentationChannel, requester: Requester, docType: String,
        elementsSent: [ElementID], decision: HistoryDecision, useCase: String? = nil
    ) {
        self.init(
            time: time, channel: channel, requesterName: requester.displayName,
            requesterIdentifier: requester.identifier, authentication: requester.authentication.summary,
            docType: docType, elementsSent: elementsSent.map(\.description), decision: decision, useCase: useCase)
    }

    private enum CodingKeys: String, CodingKey {
        case time, channel, requesterName, requesterIdentifier, authentication, docType, elementsSent, decision,
            failureReason, copies, useCase
    }

    /// `decision` is "sent", "declined" or "failed", with `failureReason` for "failed".
    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(time, forKey: .time)
        try c.encode(channel, forKey: .channel)
        try c.encode(requesterName, forKey: .requesterName)
        try c.encodeIfPresent(requesterIdentifier, forKey: .requesterIdentifier)
        try c.encode(authentication, forKey: .authentication)
        try c.encode(docType, forKey: .docType)
        try c.encode(elementsSent, forKey: .elementsSent)
        try c.encode(decision.name, forKey: .decision)
        try c.encodeIfPresent(decision.reason, forKey: .failureReason)
        try c.encodeIfPresent(copies, forKey: .copies)
        try c.encodeIfPresent(useCase, forKey: .useCase)
    }

    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        time = try c.decode(Date.self, forKey: .time)
        channel = try c.decode(PresentationChannel.self, forKey: .channel)
        requesterName = try c.decode(String.self, forKey: .requesterName)
        requesterIdentifier = try c.decodeIfPresent(String.self, forKey: .requesterIdentifier)
        authentication = try c.decode(String.self, forKey: .authentication)
        docType = try c.decode(String.self, forKey: .docType)
        elementsSent = try c.decode([String].self, forKey: .elementsSent)
        let name = try c.decode(String.self, forKey: .decision)
        guard
            let decision = HistoryDecision(
                name: name, reason: try c.decodeIfPresent(String.self, forKey: .failureReason))
        else {
            throw DecodingError.dataCorruptedError(
                forKey: .decision, in: c, debugDescription: "decision must be sent, declined or failed")
        }
        self.decision = decision
        copies = try c.decodeIfPresent(Int.self, forKey: .copies)
        useCase = try c.decodeIfPresent(String.self, forKey: .useCase)
    }
}

import Consent
import OnlineTransport
import OpenID4VP
import Presentation
import Wallet

/// What one online presentation came to.
public struct OnlineOutcome: Sendable {
    public enum Result: Sendable, Equatable {
        /// The verifier accepted the response with the approved elements.
        case sent
        /// The user or the policy declined: `access_denied` went to the verifier.
        case declined
        /// The request was refused or could not be answered (no matching credential, an
        /// invalid or unauthenticated request, ...): the error, sent to the verifier when
        /// ``OnlineOutcome/reportedToVerifier``.
        case refused(AuthorizationError)
        /// The verifier answered our response with an HTTP error status.
        case rejectedByVerifier(status: Int)
    }

    public var result: Result
    /// Who asked, once the request was verified (nil when it never was).
    public var requester: Requester?
    /// Whether the request came signed.
    public var isSigned: Bool
    /// Whether the verifier received the result (the response, or the error response).
    public var reportedToVerifier: Bool
    /// `redirect_uri` from the verifier's answer, where the user continues.
    public var redirectURI: String?
    /// Per document: what went out (empty unless sent).
    public var records: [PresentationRecord]
    /// Things that went wrong beside the result: an error response that could not be
    /// delivered, a history entry that could not be written. Free of values and secrets.
    public var warnings: [String]

    public init(
        result: Result, requester: Requester? = nil, isSigned: Bool = false, reportedToVerifier: Bool = false,
        redirectURI: String? = nil, records: [PresentationRecord] = [], warnings: [String] = []
    ) {
        self.result = result
        self.requester = requester
        self.isSigned = isSigned
        self.reportedToVerifier = reportedToVerifier
        self.redirectURI = redirectURI
        self.records = records
        self.warnings = warnings
    }

    /// Whether the credentials went out and were accepted.
    public var isSent: Bool { result == .sent }
}

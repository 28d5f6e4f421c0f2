import Consent

/// Why a session ended.
public enum TerminationReason: Sendable, Equatable, CustomStringConvertible {
    /// The reader sent SessionData status 20.
    case readerEnded
    /// The holder ended the session (status 20 sent).
    case holderEnded
    /// The transport went away (BLE disconnect, State end). After a response this is the
    /// normal end of a presentation.
    case transportClosed
    /// A reader message did not decrypt (status 10 sent).
    case sessionEncryptionError
    /// A reader message was not well-formed CBOR or not the expected structure (status 11 sent).
    case decodingError(String)
    /// The reader reported an error status (10 or 11).
    case readerReportedError(UInt64)
    /// A reader message exceeded the configured maximum size (status 11 sent).
    case messageTooLarge(Int)
    /// No message within the idle timeout (status 20 sent when a session existed).
    case idleTimeout
    /// No consent answer within the consent timeout: declined, then ended.
    case consentTimeout
    /// A message arrived that the session could not take in its state (status 20 sent).
    case unexpectedMessage
    /// A credential's device key could not be used (TPM absent, PIN needed, key-encryption key
    /// missing): DeviceResponse status 10 sent, then status 20. The text names the credential
    /// and its secure area.
    case deviceKeyUnusable(String)

    public var description: String {
        switch self {
        case .readerEnded: return "the reader ended the session"
        case .holderEnded: return "the holder ended the session"
        case .transportClosed: return "the connection closed"
        case .sessionEncryptionError: return "a reader message did not decrypt (status 10)"
        case .decodingError(let why): return "a reader message could not be decoded (status 11): \(why)"
        case .readerReportedError(let s): return "the reader reported error status \(s)"
        case .messageTooLarge(let n): return "a reader message of \(n) bytes exceeded the limit (status 11)"
        case .idleTimeout: return "no message from the reader within the idle timeout"
        case .consentTimeout: return "consent was not given in time"
        case .unexpectedMessage: return "the reader sent a message the session did not expect"
        case .deviceKeyUnusable(let why): return "\(why) (status 10 sent)"
        }
    }
}

/// One document's outcome in a presentation, for the history (never values).
public struct PresentationRecord: Sendable, Equatable {
    public enum Outcome: Sendable, Equatable {
        case sent
        case declined
        /// Not asked: no credential of this doc type, or the reader was refused by policy.
        case notReturned(reason: String)
    }

    public var requester: Requester
    public var docType: String
    public var elementsSent: [ElementID]
    public var outcome: Outcome
    /// The stored credential that answered (for `.sent`): the store marks which of its copies
    /// was shown.
    public var credentialID: String?
    /// The second-edition use case this document answered (``ConsentUseCase/summary``), if any.
    public var useCase: String?

    public init(
        requester: Requester, docType: String, elementsSent: [ElementID], outcome: Outcome, credentialID: String? = nil,
        useCase: String? = nil
    ) {
        self.requester = requester
        self.docType = docType
        self.elementsSent = elementsSent
        self.outcome = outcome
        self.credentialID = credentialID
        self.useCase = useCase
    }
}

/// What the holder engine asks its transport and its user interface to do.
public enum HolderOutput: Sendable {
    /// Send these SessionData bytes to the reader.
    case send([UInt8])
    /// A DeviceRequest was received and decrypted.
    case requestReceived(docTypes: [String], requester: Requester)
    /// Ask the user; answer with ``HolderSession/consent(_:at:)``.
    case consentNeeded(ConsentRequest)
    /// A DeviceResponse was produced (it is in the `.send` before this output).
    case responded([PresentationRecord])
    /// The session is over; the transport may close.
    case terminated(TerminationReason)
}

import Consent
import ISO18013
import Presentation

/// A milestone of one proximity session, in the order they happen, for observers such as
/// the D-Bus service's signals. Never carries element values.
public enum ProximitySessionEvent: Sendable {
    /// The engagement is live: the mdoc service registered and advertised (peripheral-server
    /// mode) and/or the scan for the reader's service started (central-client mode).
    case advertising(DeviceEngagement)
    /// A reader started the session: State start (peripheral-server), the reader's Ident
    /// matched and Server2Client subscribed (central-client), or its L2CAP channel opened.
    case readerConnected
    /// A DeviceRequest was received and decrypted.
    case requestReceived(docTypes: [String], requester: Requester)
    /// A DeviceResponse was generated and queued for the reader.
    case responded([PresentationRecord])
}

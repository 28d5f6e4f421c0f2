import Consent
import ISO18013
import Presentation

/// A milestone of one proximity session, in the order they happen, for observers such as
/// the D-Bus service's signals. Never carries element values.
public enum ProximitySessionEvent: Sendable {
    /// The mdoc service is registered and advertised: a reader can connect now.
    case advertising(DeviceEngagement)
    /// A reader started the session (State start).
    case readerConnected
    /// A DeviceRequest was received and decrypted.
    case requestReceived(docTypes: [String], requester: Requester)
    /// A DeviceResponse was generated and queued for the reader.
    case responded([PresentationRecord])
}

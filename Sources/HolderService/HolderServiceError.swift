import DBus
import PrintableText

/// Why the service refused or could not do something, as its D-Bus clients see it: an
/// `org.mdocholder.Error.*` name and a message that says what to do. Messages name adapters,
/// sessions, options and doc types, never claim values or keys.
public enum HolderServiceError: Error, Sendable, Equatable, CustomStringConvertible {
    /// A method's arguments or options are wrong.
    case invalidArguments(String)
    /// The adapter already runs a proximity session.
    case busy(adapter: String, session: UInt64)
    /// No session, agent or object by that name.
    case notFound(String)
    /// Asked for something this build or configuration does not do.
    case notSupported(String)
    /// The store has no valid credential to present.
    case noCredential
    /// BlueZ failed (no bluetoothd, no such adapter, registration refused).
    case bluetooth(String)
    /// The credential store could not be read or written.
    case store(String)
    /// The service could not start: the bus name is taken, the bus refused it, ...
    case startup(String)
    /// The consent front-end declined (an offer: nothing was requested from the issuer).
    case declined(String)
    /// The offer needs a transaction code and none that fits it was given.
    case transactionCode(String)
    /// The issuer answered with an OAuth error (`invalid_grant` for a wrong transaction code, ...).
    case issuerRefused(String)
    /// The issuer could not be reached, or its answer (metadata, token, credential) cannot be used.
    case issuer(String)
    /// The credential the issuer sent failed the holder's checks: nothing was stored.
    case credentialRefused(String)
    /// Something else failed.
    case failed(String)

    /// The D-Bus error name.
    public var name: String {
        let suffix: String
        switch self {
        case .invalidArguments: suffix = "InvalidArguments"
        case .busy: suffix = "Busy"
        case .notFound: suffix = "NotFound"
        case .notSupported: suffix = "NotSupported"
        case .noCredential: suffix = "NoCredential"
        case .bluetooth: suffix = "Bluetooth"
        case .store: suffix = "Store"
        case .startup: suffix = "Startup"
        case .declined: suffix = "Declined"
        case .transactionCode: suffix = "TransactionCode"
        case .issuerRefused: suffix = "IssuerRefused"
        case .issuer: suffix = "Issuer"
        case .credentialRefused: suffix = "CredentialRefused"
        case .failed: suffix = "Failed"
        }
        return "org.mdocholder.Error." + suffix
    }

    public var description: String {
        switch self {
        case .invalidArguments(let text), .notFound(let text), .notSupported(let text), .bluetooth(let text),
            .store(let text), .startup(let text), .failed(let text), .declined(let text), .transactionCode(let text),
            .issuerRefused(let text), .issuer(let text), .credentialRefused(let text):
            return text
        case .busy(let adapter, let session):
            return
                "\(adapter) already runs proximity session \(session): Cancel(\(session)) it first, or use another adapter"
        case .noCredential:
            return "no valid credential in the store: import one with `mdoc-holder credentials import`"
        }
    }

    /// The error as a D-Bus error reply, its message at most ``replyLimit`` characters (a
    /// message may carry caller text) and shown through ``RemoteText`` (it may carry a reader's,
    /// an issuer's or a verifier's words): every D-Bus error the service sends passes here.
    public var dbusError: DBusError {
        DBusError(
            name: name,
            message: RemoteText.printable(
                CallerText.bounded(description, limit: Self.replyLimit), limit: Self.replyLimit + 40))
    }

    static let replyLimit = 1024
}

import Consent
import FoundationEssentials
import ISO18013
import JOSE
import MdocCrypto
import OnlineTransport
import OpenID4VCI
import SecureArea
import Wallet

/// Receiving credentials with OpenID4VCI 1.0 over HTTPS, from the offer to the stored
/// credential:
///
/// 1. read the offer (``CredentialOfferURL``; by reference: GET `credential_offer_uri`);
/// 2. fetch the issuer's metadata and its authorization server's (RFC 8414, the OpenID
///    configuration as a fallback);
/// 3. ask for consent (who issues, what it will hold): a decline sends nothing further;
/// 4. get an access token with the pre-authorized code (and the transaction code when the
///    offer asks for one), with DPoP when the server supports it;
/// 5. per credential: make the keys in the secure area, get a `c_nonce`, send one `jwt`
///    proof per key, check every copy as a file import is checked, store all copies as one
///    credential or none;
/// 6. notify the issuer (`credential_accepted` / `credential_failure`) and record the history.
public struct CredentialIssuance: Sendable {
    /// What the flow reports while it runs (for the command line).
    public enum Event: Sendable {
        case fetchingOffer(host: String)
        case issuer(name: String, host: String)
        /// The user must open this URL (the authorization code flow): in a browser on this
        /// machine, or on a phone through a QR code. The redirect comes back to the listener.
        case openAuthorization(url: String)
        case requestingToken(host: String, dpop: Bool)
        case requestingCredential(docType: String, copies: Int)
        case stored(credentialID: String, docType: String, copies: Int)
        /// The issuer deferred issuance; polling every `interval` seconds.
        case deferred(docType: String, interval: Int)
        /// Not ready within the wait: kept in the store (`credentials receive --pending`).
        case keptPending(pendingID: String, docType: String)
        case notified(event: String)
    }

    /// What the user (or the caller) gives when the offer needs a transaction code: the
    /// issuer and the offer's description of the code in, the code out. It throws
    /// ``CredentialIssuanceError/transactionCodeUnavailable(_:)``, saying why, when no code is
    /// given. The code is never logged.
    public typealias TransactionCodeSource =
        @Sendable (TransactionCodeRequest) async throws(CredentialIssuanceError) -> String

    /// IACA certificates received credentials must chain to.
    public var trustAnchors: [Certificate]
    /// IACAs from VICALs, each trusted for the docTypes its list names only.
    public var scopedAnchors: [IssuerTrust.ScopedAnchor] = []
    /// CA certificates for TLS beside the system trust store (`--tls-ca`).
    public var tlsCAs: [Certificate]
    /// The secure area new keys are made in (the store's default when nil).
    public var secureArea: SecureAreaName?
    /// How many copies of each credential to ask for (each bound to its own key).
    public var batch: Int
    public var limits: HTTPFetcher.Limits
    public var now: @Sendable () -> Date
    /// The holder's client identifier at authorization servers (authorization code flow).
    public var clientID: String
    /// The redirect URI of the authorization code flow: nil for a loopback listener on a
    /// random port; a loopback `http://127.0.0.1:PORT/PATH` to listen there (a relay forwards
    /// the redirect to it).
    public var redirectURI: String?
    /// How long the user has to authorize in the browser.
    public var authorizationTimeout: Duration
    /// How long a deferred issuance is polled before it is kept pending (`--wait`).
    public var wait: Duration
    /// Whether offers without a pre-authorized code may run the authorization code flow (a
    /// browser the user opens, a loopback redirect). When false they are refused before
    /// consent, as not supported.
    public var authorizationCodeFlow: Bool

    public init(
        trustAnchors: [Certificate], tlsCAs: [Certificate] = [], secureArea: SecureAreaName? = nil, batch: Int = 1,
        limits: HTTPFetcher.Limits = HTTPFetcher.Limits(), clientID: String = "mdoc-holder",
        redirectURI: String? = nil, authorizationTimeout: Duration = .seconds(300), wait: Duration = .seconds(30),
        authorizationCodeFlow: Bool = true, now: @escaping @Sendable () -> Date = { Date() }
    ) {
        self.wait = wait
        self.authorizationCodeFlow = authorizationCodeFlow
        self.trustAnchors = trustAnchors
        self.tlsCAs = tlsCAs
        self.secureArea = secureArea
        self.batch = batch
        self.limits = limits
        self.clientID = clientID
        self.redirectURI = redirectURI
        self.authorizationTimeout = authorizationTimeout
        self.now = now
    }

    /// The result of one offer.
    public struct Outcome: Sendable {
        public enum Result: Sendable, Equatable {
            /// Stored: the new credential IDs, one per credential configuration.
            case received([String])
            /// The user or the policy declined: nothing was requested.
            case declined
        }

        public var result: Result
        public var issuerName: String
        /// Deferred issuances not ready within the wait, kept in the store.
        public var pending: [String] = []
        /// Things that went wrong without undoing the result (a notification not delivered).
        public var warnings: [String] = []
        /// Pending issuances that ended without a credential (resuming): what happened.
        public var failures: [String] = []
    }

    /// Runs one offer (as a QR code or link carries it).
    public func run(
        offer: String, store: CredentialStore, consent: any ConsentPrompt,
        transactionCode: @escaping TransactionCodeSource, events: @escaping @Sendable (Event) -> Void = { _ in }
    ) async throws(CredentialIssuanceError) -> Outcome {
        var flow = IssuanceFlow(
            issuance: self, client: try IssuerClient(tlsCAs: tlsCAs, limits: limits, now: now), store: store,
            consent: consent, transactionCode: transactionCode, events: events)
        return try await flow.run(offer)
    }
}

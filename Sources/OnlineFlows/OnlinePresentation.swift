import Consent
import FoundationEssentials
import JOSE
import MdocCrypto
import OAuthWeb
import OnlineTransport
import OpenID4VP
import Presentation
import Wallet

/// One OpenID4VP 1.0 presentation over HTTPS, from the request URL to the history entry:
///
/// 1. read the URL (``AuthorizationRequestURL``): request by value, Request Object by value,
///    or by reference: GET the request_uri, or POST `wallet_metadata` and a fresh
///    `wallet_nonce` to it;
/// 2. check who sent it (``RequestObjectVerifier``);
/// 3. fix where and how to answer (``ResponseParameters``: response_uri, encryption, the
///    SessionTranscript);
/// 4. choose credentials (``DCQLMatcher``) among the store's valid ones, ask the user
///    (``ConsentPrompt``), build the DeviceResponses for what was approved;
/// 5. POST the response to the response_uri and read an optional `redirect_uri`;
/// 6. write the history (channel online).
///
/// A request refused after step 2 (decline, no matching credential, no usable encryption key,
/// ...) gets an error response at its response_uri, and the history records it. A request
/// refused before its origin is proven is only reported locally, except for errors about its
/// content when the origin is proven from its raw parameters (``ErrorDestination``).
public struct OnlinePresentation: Sendable {
    /// What the flow reports while it runs (for the command line).
    public enum Event: Sendable {
        /// Fetching the Request Object from this host.
        case fetchingRequest(host: String)
        /// The request is verified: who asks and whether the request was signed.
        case verified(requester: Requester, signed: Bool)
        /// The consent front-end is asked.
        case askingConsent
        /// Sending the response or error response to this host.
        case sending(host: String)
    }

    public var verifierTrust: VerifierTrustConfiguration
    /// CA certificates for TLS beside the system trust store (`--tls-ca`).
    public var tlsCAs: [Certificate]
    public var limits: HTTPFetcher.Limits
    /// The clock: credential validity, certificates and `exp` are checked at this time.
    public var now: @Sendable () -> Date

    public init(
        verifierTrust: VerifierTrustConfiguration, tlsCAs: [Certificate] = [],
        limits: HTTPFetcher.Limits = HTTPFetcher.Limits(), now: @escaping @Sendable () -> Date = { Date() }
    ) {
        self.verifierTrust = verifierTrust
        self.tlsCAs = tlsCAs
        self.limits = limits
        self.now = now
    }

    /// Runs one presentation (see ``run(url:store:consent:events:)``).
    public static func run(
        url: String, store: CredentialStore, consent: any ConsentPrompt, verifierTrust: VerifierTrustConfiguration,
        tlsCAs: [Certificate] = [], limits: HTTPFetcher.Limits = HTTPFetcher.Limits(),
        events: @escaping @Sendable (Event) -> Void = { _ in }
    ) async throws(OnlinePresentationError) -> OnlineOutcome {
        try await OnlinePresentation(verifierTrust: verifierTrust, tlsCAs: tlsCAs, limits: limits).run(
            url: url, store: store, consent: consent, events: events)
    }

    /// Runs one presentation for the request `url` (as a QR code or link carries it).
    ///
    /// - Returns: what happened: sent, declined, refused (with the error and whether the
    ///   verifier got it), or rejected by the verifier.
    /// - Throws: when the Request Object cannot be fetched, the response cannot be delivered
    ///   (after writing the failure to the history), or the store cannot be read.
    public func run(
        url: String, store: CredentialStore, consent: any ConsentPrompt,
        events: @escaping @Sendable (Event) -> Void = { _ in }
    ) async throws(OnlinePresentationError) -> OnlineOutcome {
        let fetcher: HTTPFetcher
        do {
            fetcher = try HTTPFetcher(additionalTrustRoots: tlsCAs, limits: limits)
        } catch {
            throw .setup(error)
        }
        var flow = OnlinePresentationFlow(
            presentation: self, verifier: VerifierClient(fetcher: fetcher), store: store, consent: consent,
            events: events, time: now())
        return try await flow.run(url: url)
    }
}

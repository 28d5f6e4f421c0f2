import ISO18013
import MdocCrypto
import OnlineTransport
import OpenID4VP
import Presentation
import Proximity

/// What a holder runs with, whichever adapter built it (`mdoc-holder present`,
/// `present-online`, `credentials receive`, or `serve`): reader, verifier, issuer and TLS
/// trust, the untrusted-reader policy, device authentication, the consent front-end's
/// timeout and the proximity options. Each command-line option and each `serve` option
/// lands in one of these fields, so the command line and the service offer the same.
public struct HolderSettings: Sendable {
    /// Reader roots: a reader whose certificate chains to one of them is trusted (`--reader-trust`).
    public var readerTrust: [Certificate]
    /// What to do with an unauthenticated or untrusted reader (`--untrusted-readers`).
    public var untrustedReaders: UntrustedReaderPolicy
    /// How documents are authenticated to a reader (`--device-auth`).
    public var deviceAuth: DeviceAuthMode
    /// The time a consent agent has to answer (`serve --agent-timeout`); nil when consent
    /// comes from the terminal or a policy file.
    public var agentTimeout: Duration?
    /// How proximity sessions run (`--mode`, `--l2cap`, `--max-chunk-size`, `--engagement-version`).
    public var proximity: ProximityOptions
    /// Who may sign OpenID4VP requests (`--verifier-trust`, `--verifiers`).
    public var verifierTrust: VerifierTrustConfiguration
    /// CA certificates trusted for HTTPS besides the system trust store (`--tls-ca`).
    public var tlsCAs: [Certificate]
    /// The bounds of every HTTPS exchange (`--http-timeout`).
    public var httpLimits: HTTPFetcher.Limits
    /// IACA certificates received credentials must chain to (`--trust-anchor`).
    public var issuerTrust: [Certificate]
    /// IACAs from VICALs (`--vical`), each trusted for its listed docTypes only.
    public var issuerScopedAnchors: [IssuerTrust.ScopedAnchor] = []
    /// Whether an offer may run the authorization code flow (a browser the user opens): the
    /// command line can show the URL, the service cannot.
    public var authorizationCodeFlow: Bool
    /// The loopback redirect URI of the authorization code flow (`--redirect-uri`).
    public var redirectURI: String?

    public init(
        readerTrust: [Certificate] = [], untrustedReaders: UntrustedReaderPolicy = .ask,
        deviceAuth: DeviceAuthMode = .signature, agentTimeout: Duration? = nil,
        proximity: ProximityOptions = ProximityOptions(),
        verifierTrust: VerifierTrustConfiguration = VerifierTrustConfiguration(trustAnchors: []),
        tlsCAs: [Certificate] = [], httpLimits: HTTPFetcher.Limits = HTTPFetcher.Limits(),
        issuerTrust: [Certificate] = [], authorizationCodeFlow: Bool = true, redirectURI: String? = nil
    ) {
        self.readerTrust = readerTrust
        self.untrustedReaders = untrustedReaders
        self.deviceAuth = deviceAuth
        self.agentTimeout = agentTimeout
        self.proximity = proximity
        self.verifierTrust = verifierTrust
        self.tlsCAs = tlsCAs
        self.httpLimits = httpLimits
        self.issuerTrust = issuerTrust
        self.authorizationCodeFlow = authorizationCodeFlow
        self.redirectURI = redirectURI
    }

    /// How long the agent's answer may take on top of its own timeout before the engine gives
    /// up: the agent's timeout answers first (a decline, and Cancel to the agent).
    public static let agentTimeoutMargin = Duration.seconds(5)

    /// The proximity engine's settings: trust, policy, device authentication and the consent
    /// timeout (an agent's timeout plus ``agentTimeoutMargin``; the engine's default otherwise).
    public var engineConfiguration: HolderConfiguration {
        var configuration = HolderConfiguration(
            readerTrustAnchors: readerTrust, untrustedReaders: untrustedReaders, deviceAuth: deviceAuth)
        if let agentTimeout { configuration.consentTimeout = agentTimeout + Self.agentTimeoutMargin }
        return configuration
    }
}

import Consent
import MdocCrypto
import OnlineTransport
import OpenID4VP
import Presentation
import Proximity
import SecureArea

/// Who answers consent requests.
public enum ServiceConsent: Sendable {
    /// The registered D-Bus agent (`org.mdocholder.AgentManager1`), declining when none is
    /// registered, when it does not answer within `timeout`, or when it leaves the bus.
    case agent(timeout: Duration)
    /// A kiosk policy file; agents are not asked (RegisterAgent is refused).
    case policy(PolicyConsent, path: String)
}

/// What `mdoc-holder serve` runs with.
public struct ServiceConfiguration: Sendable {
    /// The credential store file.
    public var storePath: String
    /// The bus address; nil for the system bus (DBUS_SYSTEM_BUS_ADDRESS when set).
    public var busAddress: String?
    public var consent: ServiceConsent
    /// Reader trust and the other engine settings for proximity sessions.
    public var holder: HolderConfiguration
    /// The adapter of StartProximity when its options name none (and of the kiosk).
    public var defaultAdapter: String
    /// How proximity sessions run (`serve --mode --l2cap --max-chunk-size`); the modes are
    /// those of StartProximity calls that name none, and of the kiosk.
    public var proximity: ProximityOptions
    /// Whether PresentOnline and ReceiveCredential are allowed (`serve --online`; the unit's
    /// sandbox opens Internet sockets only then).
    public var online: Bool
    /// The IACA (issuer root) certificates credentials received with ReceiveCredential must
    /// chain to (`serve --trust-anchor`); none: ReceiveCredential is refused.
    public var issuerTrust: [Certificate]
    /// Online presentation: who may sign requests, extra TLS roots.
    public var verifierTrust: VerifierTrustConfiguration
    public var tlsCAs: [Certificate]
    /// The bounds of every HTTPS exchange (`serve --http-timeout`: the deadline).
    public var httpLimits = HTTPFetcher.Limits()
    /// Kiosk mode: a proximity session always armed on `defaultAdapter`.
    public var kiosk: KioskConfiguration?
    /// Where device keys live (`--secure-area`, `--kek-file`, `--tpm-tcti`; the KEK from the
    /// unit's `LoadCredentialEncrypted=mdoc-holder-kek`).
    public var secureAreas: SecureAreaRegistry = .resolve()

    public init(
        storePath: String, busAddress: String? = nil, consent: ServiceConsent,
        holder: HolderConfiguration = HolderConfiguration(), defaultAdapter: String = "hci0",
        proximity: ProximityOptions = ProximityOptions(), online: Bool = false,
        verifierTrust: VerifierTrustConfiguration = VerifierTrustConfiguration(trustAnchors: []),
        tlsCAs: [Certificate] = [], issuerTrust: [Certificate] = [], kiosk: KioskConfiguration? = nil
    ) {
        self.issuerTrust = issuerTrust
        self.storePath = storePath
        self.busAddress = busAddress
        self.consent = consent
        self.holder = holder
        self.defaultAdapter = defaultAdapter
        self.proximity = proximity
        self.online = online
        self.verifierTrust = verifierTrust
        self.tlsCAs = tlsCAs
        self.kiosk = kiosk
    }
}

/// Where a kiosk shows each fresh engagement.
public struct KioskConfiguration: Sendable {
    /// PNG files, each rewritten atomically with the QR code of every new engagement.
    public var qrPNGPaths: [String]
    /// Terminals (`/dev/tty1`) the QR code is drawn on, screen cleared first.
    public var qrTTYs: [String]

    public init(qrPNGPaths: [String] = [], qrTTYs: [String] = []) {
        self.qrPNGPaths = qrPNGPaths
        self.qrTTYs = qrTTYs
    }
}

import Consent
import ConsentPolicy
import HolderRuntime
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
    /// What the holder runs with (the same settings `present`, `present-online` and
    /// `credentials receive` build): reader, verifier, issuer and TLS trust, the
    /// untrusted-reader policy, device authentication, proximity options (the modes are those
    /// of StartProximity calls that name none, and of the kiosk), HTTPS bounds. ReceiveCredential
    /// is refused while `issuerTrust` is empty.
    public var settings: HolderSettings
    /// The adapter of StartProximity when its options name none (and of the kiosk).
    public var defaultAdapter: String
    /// Whether PresentOnline and ReceiveCredential are allowed (`serve --online`; the unit's
    /// sandbox opens Internet sockets only then).
    public var online: Bool
    /// Kiosk mode: a proximity session always armed on `defaultAdapter`.
    public var kiosk: KioskConfiguration?
    /// Where device keys live (`--secure-area`, `--kek-file`, `--tpm-tcti`; the KEK from the
    /// unit's `LoadCredentialEncrypted=mdoc-holder-kek`).
    public var secureAreas: SecureAreaRegistry = .resolve()
    /// How often the credentials' status is checked in their issuers' status lists
    /// (`serve --status-refresh`; nil: never on a timer, RefreshStatus only). The timer runs
    /// only with `online` and issuer trust anchors.
    public var statusRefreshInterval: Duration? = .seconds(6 * 3600)

    public init(
        storePath: String, busAddress: String? = nil, consent: ServiceConsent,
        settings: HolderSettings = HolderSettings(), defaultAdapter: String = "hci0", online: Bool = false,
        kiosk: KioskConfiguration? = nil
    ) {
        self.storePath = storePath
        self.busAddress = busAddress
        self.consent = consent
        self.settings = settings
        self.defaultAdapter = defaultAdapter
        self.online = online
        self.kiosk = kiosk
    }

    /// The settings the service's holder is built from: those given, with the agent's
    /// timeout (the engine waits a little longer); the authorization code flow only with a
    /// consent agent (it opens the authorization URL; a policy file has nobody to open it).
    var holderSettings: HolderSettings {
        var settings = settings
        settings.authorizationCodeFlow = false
        if case .agent(let timeout) = consent {
            settings.agentTimeout = timeout
            settings.authorizationCodeFlow = true
        }
        return settings
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

import BLETransport
import Consent
import FoundationEssentials
import ISO18013
import MdocCrypto
import Presentation

/// How one proximity session ended, for the command line and the history.
public struct ProximitySessionResult: Sendable {
    /// The engagement that was shown.
    public var engagement: DeviceEngagement
    public var transportEnd: BLESessionEndReason?
    public var holderEnd: TerminationReason?
    public var responsesSent: Int
    public var records: [PresentationRecord]
    /// The BLE mode the reader used; nil when no reader came.
    public var mode: ProximityMode?
    /// The reader used the L2CAP channel (peripheral-server mode) instead of GATT messages.
    public var overL2CAP = false
    /// Why L2CAP was not offered although asked for (GATT was used).
    public var l2capUnavailable: String?
    /// The transport bound that ended the session, when one did (``ProximityTimeouts``).
    public var timedOut: ProximityTimeout?

    /// A presentation happened: at least one response went out and nothing failed before
    /// it was delivered.
    public var isSuccess: Bool {
        guard responsesSent > 0 else { return false }
        switch transportEnd {
        case .disconnected?, .protocolError?: return false
        default: return true
        }
    }
}

/// The holder's proximity loop: a fresh engagement, the BLE link in the modes it offers
/// (mdoc peripheral-server: our GATT service; mdoc central-client: the reader's), the BLE
/// framing, the holder engine and the consent prompt, until the session ends. With both
/// modes offered, the first reader to show up on either decides and the other is closed.
/// One instance serves one session at a time.
public struct ProximityHolder: Sendable {
    /// Peripheral-server mode, when offered.
    public let server: (any MdocGattServer)?
    /// Central-client mode, when offered.
    public let centralClient: (any MdocGattClient)?
    public let credentials: [PresentableCredential]
    public let configuration: HolderConfiguration
    public let consent: any ConsentPrompt
    /// How often timeouts are checked.
    public var tickInterval: Duration = .milliseconds(500)
    /// Bounds on the session measured on the link, whatever the reader does.
    public var timeouts = ProximityTimeouts()
    /// The largest BLE chunk (header byte included) to send, below min(512, ATT MTU - 3):
    /// for a controller that loses ATT packets larger than its ACL buffers (the VM tier's
    /// btvirt, as a central). Nil: the standard's size.
    public var maximumChunkSize: Int?
    /// The engagement's version: "1.1" (the default) carries OriginInfos (empty, as for a QR
    /// engagement) and Capabilities (ReaderAuthAll and extended request support); "1.0"
    /// neither, for a reader that refuses a second-edition engagement.
    public var engagementVersion = EngagementVersion.secondEdition
    /// Central-client mode: use the reader's L2CAP channel when its service has the L2CAP PSM
    /// characteristic (after the Ident matched); GATT when it has none or the channel does
    /// not open.
    public var centralL2CAP = false
    /// Opens an L2CAP listener for a session in peripheral-server mode: its PSM goes into
    /// the engagement (key 21) and the PSM characteristic, and a reader that connects to it
    /// exchanges framed messages there instead of GATT chunks. Nil: GATT only. When it throws
    /// (a kernel without Bluetooth sockets), the session offers GATT only.
    public var l2capListener: (@Sendable () throws -> any MdocL2CAPListener)?

    /// Peripheral-server mode only.
    public init(
        server: any MdocGattServer, credentials: [PresentableCredential], configuration: HolderConfiguration,
        consent: any ConsentPrompt
    ) {
        self.init(
            server: server, centralClient: nil, credentials: credentials, configuration: configuration,
            consent: consent)
    }

    /// The modes whose link is given; at least one must be.
    public init(
        server: (any MdocGattServer)?, centralClient: (any MdocGattClient)?, credentials: [PresentableCredential],
        configuration: HolderConfiguration, consent: any ConsentPrompt
    ) {
        precondition(server != nil || centralClient != nil, "ProximityHolder needs a GATT server or client")
        self.server = server
        self.centralClient = centralClient
        self.credentials = credentials
        self.configuration = configuration
        self.consent = consent
    }

    /// Runs one session. `showEngagement` gets the engagement (to print its QR code) before
    /// the service is registered or the scan starts; `progress` gets the outgoing transfer's
    /// progress; `observer` gets the session's milestones (``ProximitySessionEvent``) as they
    /// happen.
    public func runSession(
        showEngagement: @Sendable (DeviceEngagement) -> Void,
        progress: @escaping @Sendable (TransferProgress) -> Void = { _ in },
        observer: @escaping @Sendable (ProximitySessionEvent) -> Void = { _ in }
    ) async throws -> ProximitySessionResult {
        let eDeviceKey = try PrivateKey.generate(.p256)
        var l2capUnavailable: String?
        var listener: (any MdocL2CAPListener)?
        if server != nil, let open = l2capListener {
            do {
                listener = try open()
            } catch {
                l2capUnavailable = "\(error)"
            }
        }
        defer { listener?.close() }
        let engagement = makeEngagement(eDeviceKey.publicKey, l2capPSM: listener?.psm)
        showEngagement(engagement)
        let driver = HolderLoopDriver(
            self, engagement: engagement, eDeviceKey: eDeviceKey, listener: listener, progress: progress,
            observer: observer)
        driver.setL2CAPUnavailable(l2capUnavailable)
        return try await driver.run()
    }

    /// A fresh engagement offering the modes whose link is given, each under a new random
    /// service UUID, and the L2CAP PSM when one listens.
    private func makeEngagement(_ eDeviceKey: PublicKey, l2capPSM: UInt16?) -> DeviceEngagement {
        let peripheralUUID = server == nil ? nil : BluetoothUUID(bytes: SecureRandom.bytes(16))
        let centralUUID = centralClient == nil ? nil : BluetoothUUID(bytes: SecureRandom.bytes(16))
        return DeviceEngagement(
            eDeviceKey: eDeviceKey,
            retrievalMethods: [
                .ble(
                    version: 1,
                    BleOptions(
                        peripheralServerMode: peripheralUUID != nil, centralClientMode: centralUUID != nil,
                        peripheralServerUUID: peripheralUUID?.bytes, centralClientUUID: centralUUID?.bytes,
                        l2capPSM: l2capPSM.map { UInt64($0) }))
            ], version: engagementVersion)
    }
}

extension ProximitySessionResult {
    /// How the session ended, in words, the telling cause first: a transport timeout, a BLE
    /// protocol error (bad chunk header, oversize message, data before start), the engine's
    /// reason, then the link's. A protocol error is never reported as the link closing.
    public var endDescription: String {
        if let timedOut { return timedOut.description }
        if let transportEnd, case .protocolError = transportEnd { return transportEnd.description }
        if let holderEnd, holderEnd != .transportClosed { return holderEnd.description }
        return transportEnd?.description ?? holderEnd?.description ?? "ended"
    }
}

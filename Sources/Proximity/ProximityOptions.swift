import BLETransport
import Consent
import ISO18013
import Presentation

/// The BLE modes a holder's engagement offers, as `present --mode`, `serve --mode` and
/// StartProximity's "mode" option name them (18013-5 device retrieval over BLE).
public enum ProximityModeOption: String, Sendable, CaseIterable {
    /// mdoc peripheral-server mode: the holder is the GATT server.
    case peripheral
    /// mdoc central-client mode: the reader is the GATT server.
    case central
    /// Both offered in the engagement; the reader picks.
    case both

    /// Whether `mode` is offered.
    public func offers(_ mode: ProximityMode) -> Bool {
        switch (self, mode) {
        case (.both, _), (.peripheral, .peripheralServer), (.central, .centralClient): return true
        default: return false
        }
    }
}

/// How the holder's proximity sessions run, from `present`'s options, `serve`'s, or a
/// StartProximity call: one place turns them into a ``ProximityHolder``, so the command
/// line and the service offer the same things.
public struct ProximityOptions: Sendable, Hashable {
    /// The modes the engagement offers.
    public var modes: ProximityModeOption
    /// Offer an L2CAP channel (peripheral-server mode) and use the reader's (central-client).
    public var l2cap: Bool
    /// The largest BLE chunk to send (``ProximityHolder/maximumChunkSize``); nil: the
    /// standard's size.
    public var maximumChunkSize: Int?
    /// The DeviceEngagement version (``ProximityHolder/engagementVersion``): "1.1" with
    /// Capabilities unless a first-edition engagement is asked for.
    public var engagementVersion: EngagementVersion

    public init(
        modes: ProximityModeOption = .peripheral, l2cap: Bool = false, maximumChunkSize: Int? = nil,
        engagementVersion: EngagementVersion = .secondEdition
    ) {
        self.modes = modes
        self.l2cap = l2cap
        self.maximumChunkSize = maximumChunkSize
        self.engagementVersion = engagementVersion
    }

    /// The smallest chunk cap: a chunk at the ATT minimum MTU.
    public static let minimumChunkSize = MessageFragmenter.minimumMTU - 3

    /// The same options with other modes (a StartProximity call naming its own).
    public func with(modes: ProximityModeOption) -> Self {
        var copy = self
        copy.modes = modes
        return copy
    }

    /// Nil when valid, else what is wrong, in the words of the option.
    public var problem: String? {
        if let maximumChunkSize, maximumChunkSize < Self.minimumChunkSize {
            return "the chunk size cap must be at least \(Self.minimumChunkSize) bytes"
        }
        return nil
    }

    /// The holder loop for these options over the given GATT roles (each used only when its
    /// mode is offered) and, with ``l2cap``, L2CAP listeners from `l2capListener` (nil: the
    /// kernel has no L2CAP sockets; GATT only).
    public func holder(
        server: any MdocGattServer, client: any MdocGattClient,
        l2capListener: (@Sendable () throws -> any MdocL2CAPListener)?, credentials: [PresentableCredential],
        configuration: HolderConfiguration, consent: any ConsentPrompt
    ) -> ProximityHolder {
        var holder = ProximityHolder(
            server: modes.offers(.peripheralServer) ? server : nil,
            centralClient: modes.offers(.centralClient) ? client : nil, credentials: credentials,
            configuration: configuration, consent: consent)
        holder.l2capListener = l2cap && modes.offers(.peripheralServer) ? l2capListener : nil
        holder.centralL2CAP = l2cap && modes.offers(.centralClient)
        holder.maximumChunkSize = maximumChunkSize
        holder.engagementVersion = engagementVersion
        return holder
    }
}

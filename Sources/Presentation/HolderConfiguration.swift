import CBOR
import FoundationEssentials
import ISO18013
import MdocCrypto

/// What the holder does with a reader that is not authenticated, or whose certificate does
/// not chain to a configured reader root.
public enum UntrustedReaderPolicy: String, Sendable, CaseIterable {
    /// Answer with documentErrors, no data, without asking.
    case refuse
    /// Ask the user, showing that the reader is not trusted.
    case ask
    /// Ask the user as for a trusted reader.
    case allow
}

/// How the holder authenticates the documents it sends (ISO 18013-5 9.1.3).
public enum DeviceAuthMode: String, Sendable, CaseIterable {
    /// deviceSignature with the credential's device key; deviceMac when the key cannot sign.
    case signature
    /// deviceMac with EMacKey when the device key and the reader key share a curve;
    /// deviceSignature otherwise.
    case mac
}

/// Settings of a holder session, with defaults a user would accept.
public struct HolderConfiguration: Sendable {
    /// Reader roots: a reader whose certificate chains to one of them is trusted.
    public var readerTrustAnchors: [Certificate]
    public var untrustedReaders: UntrustedReaderPolicy
    public var deviceAuth: DeviceAuthMode
    /// Largest message accepted from a reader (the default fits any request by far).
    public var maxMessageSize: Int
    /// A session with no message for this long is ended.
    public var sessionIdleTimeout: Duration
    /// A consent prompt unanswered for this long counts as declined, and the session ends.
    public var consentTimeout: Duration
    /// Bounds on the CBOR of reader messages.
    public var decodingLimits: CBORDecodingLimits
    /// Faults in the engine, for the fault holder: test support only; the shipped commands
    /// never set it (none, the default, leaves the engine unchanged).
    @_spi(TestFaults) public var testFaults: HolderTestFaults = []

    public init(
        readerTrustAnchors: [Certificate] = [], untrustedReaders: UntrustedReaderPolicy = .ask,
        deviceAuth: DeviceAuthMode = .signature, maxMessageSize: Int = 256 * 1024,
        sessionIdleTimeout: Duration = .seconds(120), consentTimeout: Duration = .seconds(60)
    ) {
        self.readerTrustAnchors = readerTrustAnchors
        self.untrustedReaders = untrustedReaders
        self.deviceAuth = deviceAuth
        self.maxMessageSize = maxMessageSize
        self.sessionIdleTimeout = sessionIdleTimeout
        self.consentTimeout = consentTimeout
        self.decodingLimits = .default
    }
}

import CBOR
import COSE
import FoundationEssentials
import ISO18013
import MdocCrypto

/// Reader authentication material: the key and its certificate chain (leaf first).
public struct ReaderIdentity: Sendable {
    public let key: PrivateKey
    public let chain: [Certificate]
    public init(key: PrivateKey, chain: [Certificate]) {
        self.key = key
        self.chain = chain
    }
}

/// What came back from the holder.
public enum ReaderEvent: Sendable {
    /// A DeviceResponse, verified. `ended` is true when the holder also ended the session.
    case response(VerifiedResponse, raw: [UInt8], ended: Bool)
    /// The holder ended the session with this status and no response.
    case ended(status: UInt64)
}

/// The reader side of one ISO 18013-5 session, without I/O: from the holder's engagement it
/// makes the SessionEstablishment (optionally with reader authentication), then decrypts
/// and fully verifies each DeviceResponse.
public struct ReaderSession: Sendable {
    public let engagement: DeviceEngagement
    public let transcript: SessionTranscript
    /// The reader's ephemeral key (EReaderKey); it also derives EMacKey to check deviceMac.
    public let eReaderKey: PrivateKey
    /// The session keys and counters (``ReaderSession+Crafted`` sends what the engine would not).
    var encryption: SessionEncryption
    /// Reader authentication key and chain (``ReaderSession+Authentication`` signs with it).
    let identity: ReaderIdentity?
    private let issuerTrust: IssuerTrust

    /// - Parameters:
    ///   - trustAnchors: IACA roots that issuers must chain to.
    ///   - identity: reader authentication key and chain; nil for an unauthenticated request.
    public init(
        engagement: DeviceEngagement, trustAnchors: [Certificate], identity: ReaderIdentity? = nil,
        handover: CBOR = .null
    ) throws(ISO18013Error) {
        try self.init(
            engagement: engagement, issuerTrust: IssuerTrust(anchors: trustAnchors), identity: identity,
            handover: handover)
    }

    /// A session whose issuers must chain to `issuerTrust` (IACAs possibly scoped to docTypes).
    public init(
        engagement: DeviceEngagement, issuerTrust: IssuerTrust, identity: ReaderIdentity? = nil,
        handover: CBOR = .null
    ) throws(ISO18013Error) {
        self.engagement = engagement
        self.issuerTrust = issuerTrust
        self.identity = identity
        do {
            eReaderKey = try PrivateKey.generate(engagement.eDeviceKey.curve)
        } catch {
            throw .crypto(error)
        }
        let eReaderKeyBytes = EmbeddedCBOR(COSEKey(eReaderKey.publicKey).cbor)
        transcript = SessionTranscript(
            deviceEngagement: engagement, eReaderKeyBytes: eReaderKeyBytes, handover: handover)
        let deviceKey: PublicKey
        do {
            deviceKey = try engagement.eDeviceKey.publicKey()
        } catch {
            throw .cose(structure: "EDeviceKey", error)
        }
        encryption = try SessionEncryption(
            role: .reader, privateKey: eReaderKey, peerKey: deviceKey, transcript: transcript)
        self.eReaderKeyBytes = eReaderKeyBytes
    }

    /// EReaderKeyBytes as this session's transcript holds them.
    public let eReaderKeyBytes: EmbeddedCBOR

    /// The first message: SessionEstablishment carrying the encrypted DeviceRequest.
    public mutating func establishment(requesting items: [ItemsRequest]) throws(ISO18013Error) -> [UInt8] {
        try establishment(for: deviceRequest(items))
    }

    /// The first message for a DeviceRequest built by the caller (a test or conformance case
    /// that sends what ``deviceRequest(_:)`` would not).
    public mutating func establishment(for request: DeviceRequest) throws(ISO18013Error) -> [UInt8] {
        SessionEstablishment(
            eReaderKey: COSEKey(eReaderKey.publicKey), data: try encryption.encrypt(request.encoded)
        )
        .encoded
    }

    /// A further request in the same session.
    public mutating func request(_ items: [ItemsRequest]) throws(ISO18013Error) -> [UInt8] {
        SessionData(data: try encryption.encrypt(deviceRequest(items).encoded)).encoded
    }

    /// SessionData status 20: the reader ends the session.
    public func termination() -> [UInt8] { SessionData(status: .sessionTermination).encoded }

    /// A complete message from the holder.
    public mutating func receive(_ message: [UInt8], at time: Date = Date()) throws(ISO18013Error) -> ReaderEvent {
        let data = try SessionData(bytes: message)
        guard let ciphertext = data.data else { return .ended(status: data.status ?? 0) }
        let plaintext = try encryption.decrypt(ciphertext)
        let verified = try ResponseVerifier.verify(
            plaintext, transcript: transcript, issuerTrust: issuerTrust, eReaderKey: eReaderKey, at: time)
        return .response(verified, raw: plaintext, ended: data.knownStatus == .sessionTermination)
    }
}

import CBOR
import COSE

/// `SessionEstablishment = {"eReaderKey": EReaderKeyBytes, "data": bstr}` (9.1.1.4): the
/// reader's first message.
public struct SessionEstablishment: Sendable, Hashable {
    /// EReaderKeyBytes, bytes kept for the session transcript.
    public let eReaderKeyBytes: EmbeddedCBOR
    public let eReaderKey: COSEKey
    /// The encrypted DeviceRequest.
    public let data: [UInt8]

    public init(eReaderKey: COSEKey, data: [UInt8]) {
        self.eReaderKeyBytes = EmbeddedCBOR(eReaderKey.cbor)
        self.eReaderKey = eReaderKey
        self.data = data
    }

    /// Reads the reader's first message.
    ///
    /// - Throws: ``ISO18013Error/cbor(structure:_:)`` or ``ISO18013Error/invalid(structure:reason:)``
    ///   when the message is not a SessionEstablishment (status 11), and
    ///   ``ISO18013Error/sessionEncryption(_:)`` when it is one but its EReaderKey is not a
    ///   usable COSE_Key (status 10).
    public init(bytes: [UInt8], limits: CBORDecodingLimits = .default) throws(ISO18013Error) {
        let s = "SessionEstablishment"
        let value = try Read.map(Read.decode(bytes, as: s, limits: limits), s)
        eReaderKeyBytes = try Read.embedded(value["eReaderKey"], s, "eReaderKey")
        data = try Read.bytes(value["data"], s, "data")
        // A well-formed message whose key cannot be used for this session's key agreement
        // (no or another kty/crv, a y we cannot take) is a session encryption error: status 10.
        do {
            eReaderKey = try COSEKey(cbor: eReaderKeyBytes.value)
        } catch {
            throw .sessionEncryption("EReaderKey cannot be used: \(error)")
        }
    }

    public var encoded: [UInt8] {
        CBOR.map([CBORMapEntry("eReaderKey", .embedded(eReaderKeyBytes)), CBORMapEntry("data", .bytes(data))])
            .encoded()
    }
}

/// Status codes of SessionData (9.1.1.4, table 20).
public enum SessionStatus: UInt64, Sendable, Hashable, CaseIterable {
    case sessionEncryptionError = 10
    case cborDecodingError = 11
    case sessionTermination = 20
}

/// `SessionData = {? "data": bstr, ? "status": uint}`.
public struct SessionData: Sendable, Hashable {
    public let data: [UInt8]?
    /// The raw status; use ``knownStatus`` for the codes the standard names.
    public let status: UInt64?

    public init(data: [UInt8]? = nil, status: SessionStatus? = nil) {
        self.data = data
        self.status = status?.rawValue
    }

    public init(bytes: [UInt8], limits: CBORDecodingLimits = .default) throws(ISO18013Error) {
        let s = "SessionData"
        let value = try Read.map(Read.decode(bytes, as: s, limits: limits), s)
        data = try value["data"].map { (v) throws(ISO18013Error) in try Read.bytes(v, s, "data") }
        status = try value["status"].map { (v) throws(ISO18013Error) in try Read.uint(v, s, "status") }
        if data == nil && status == nil { throw .invalid(structure: s, reason: "neither data nor status") }
    }

    public var knownStatus: SessionStatus? { status.flatMap(SessionStatus.init(rawValue:)) }

    public var encoded: [UInt8] {
        var entries: [CBORMapEntry] = []
        if let data { entries.append(CBORMapEntry("data", .bytes(data))) }
        if let status { entries.append(CBORMapEntry("status", .unsigned(status))) }
        return CBOR.map(entries).encoded()
    }
}

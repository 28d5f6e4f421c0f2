import Base64
import CBOR
import COSE
import MdocCrypto

/// `DeviceEngagement = {0: version, 1: Security, ? 2: DeviceRetrievalMethods, ...}`
/// (ISO 18013-5 8.2.1.1), with the bytes it travelled as (DeviceEngagementBytes).
///
/// A parsed engagement keeps the received bytes for the session transcript: re-encoding a
/// parsed engagement breaks interop with readers that encode differently.
public struct DeviceEngagement: Sendable, Hashable {
    public let version: String
    /// Cipher suite identifier from Security (1 in 18013-5).
    public let cipherSuite: UInt64
    /// EDeviceKeyBytes: `#6.24(bstr .cbor COSE_Key)`, bytes kept.
    public let eDeviceKeyBytes: EmbeddedCBOR
    public let eDeviceKey: COSEKey
    public let retrievalMethods: [DeviceRetrievalMethod]
    /// Keys other than 0, 1 and 2 (server retrieval, protocol info, origin infos (5),
    /// capabilities (6), ...), kept in order.
    public let otherEntries: [CBORMapEntry]
    /// OriginInfos (key 5, second edition) when it is an array; nil otherwise.
    public let originInfos: [CBOR]?
    /// Capabilities (key 6, second edition) when it is a map; nil otherwise, and nil in a
    /// "1.0" engagement whatever it carries.
    public let capabilities: DeviceCapabilities?
    /// DeviceEngagementBytes: what was in the QR code, or what we encoded.
    public let bytes: [UInt8]

    /// Builds an engagement for a fresh ephemeral key.
    public init(
        eDeviceKey: PublicKey, retrievalMethods: [DeviceRetrievalMethod], version: String = "1.0",
        otherEntries: [CBORMapEntry] = []
    ) {
        let key = COSEKey(eDeviceKey)
        let keyBytes = EmbeddedCBOR(key.cbor)
        var entries: [CBORMapEntry] = [
            CBORMapEntry(0, .text(version)), CBORMapEntry(1, .array([1, .embedded(keyBytes)])),
        ]
        if !retrievalMethods.isEmpty { entries.append(CBORMapEntry(2, .array(retrievalMethods.map(\.cbor)))) }
        entries += otherEntries
        self.version = version
        self.cipherSuite = 1
        self.eDeviceKeyBytes = keyBytes
        self.eDeviceKey = key
        self.retrievalMethods = retrievalMethods
        self.otherEntries = otherEntries
        (originInfos, capabilities) = Self.secondEditionEntries(otherEntries, version: version)
        self.bytes = CBOR.map(entries).encoded()
    }

    /// Builds an engagement of `version`: a "1.1" one carries an empty OriginInfos (key 5, as
    /// for a QR engagement) and Capabilities (key 6) with ReaderAuthAll and extended request
    /// support; a "1.0" one neither.
    public init(eDeviceKey: PublicKey, retrievalMethods: [DeviceRetrievalMethod], version: EngagementVersion) {
        switch version {
        case .firstEdition:
            self.init(eDeviceKey: eDeviceKey, retrievalMethods: retrievalMethods)
        case .secondEdition:
            self.init(
                eDeviceKey: eDeviceKey, retrievalMethods: retrievalMethods, version: version.rawValue,
                otherEntries: [
                    CBORMapEntry(.int(Int(DeviceCapabilities.originInfosKey)), .array([])),
                    CBORMapEntry(
                        .int(Int(DeviceCapabilities.engagementKey)), DeviceCapabilities.holderDefault.cbor),
                ])
        }
    }

    /// Keys 5 and 6 as this engagement's version reads them: neither in "1.0"; a value of the
    /// wrong type is left out (a reader ignores what it cannot read).
    private static func secondEditionEntries(_ entries: [CBORMapEntry], version: String) -> (
        [CBOR]?, DeviceCapabilities?
    ) {
        guard version != EngagementVersion.firstEdition.rawValue else { return (nil, nil) }
        func value(_ key: UInt64) -> CBOR? { entries.first { $0.key.uint64Value == key }?.value }
        return (
            value(DeviceCapabilities.originInfosKey)?.arrayValue,
            value(DeviceCapabilities.engagementKey).flatMap(DeviceCapabilities.init(cbor:))
        )
    }

    /// Whether the holder says it verifies `readerAuthAll` (a "1.1" engagement with
    /// Capabilities key 3 true).
    public var supportsReaderAuthAll: Bool { capabilities?.readerAuthAllSupport == true }

    /// Reads DeviceEngagementBytes.
    public init(bytes: [UInt8]) throws(ISO18013Error) {
        let s = "DeviceEngagement"
        let value = try Read.map(Read.decode(bytes, as: s), s)
        version = try Read.text(value[intKey: 0], s, "version (0)")
        let security = try Read.array(value[intKey: 1], s, "Security (1)")
        guard security.count >= 2, let suite = security[0].uint64Value else {
            throw .invalid(structure: s, reason: "Security is not [cipher suite, EDeviceKeyBytes]")
        }
        cipherSuite = suite
        eDeviceKeyBytes = try Read.embedded(security[1], s, "EDeviceKeyBytes")
        do {
            eDeviceKey = try COSEKey(cbor: eDeviceKeyBytes.value)
        } catch {
            throw .cose(structure: "EDeviceKey", error)
        }
        if let methods = value[intKey: 2] {
            guard case .array(let items) = methods else {
                throw .invalid(structure: s, reason: "DeviceRetrievalMethods is not an array")
            }
            var parsed: [DeviceRetrievalMethod] = []
            for item in items { parsed.append(try DeviceRetrievalMethod(cbor: item)) }
            retrievalMethods = parsed
        } else {
            retrievalMethods = []
        }
        let known: Set<CBOR> = [0, 1, 2]
        otherEntries = value.mapEntries!.filter { !known.contains($0.key) }
        (originInfos, capabilities) = Self.secondEditionEntries(otherEntries, version: version)
        self.bytes = bytes
    }

    /// The `mdoc:` URI a QR code carries: `"mdoc:" + base64url(DeviceEngagementBytes)`.
    public var uri: String { "mdoc:" + Base64URL.encode(bytes) }

    /// Reads an `mdoc:` URI.
    public init(uri: String) throws(ISO18013Error) {
        guard uri.hasPrefix("mdoc:") else { throw .invalidURI("does not start with \"mdoc:\"") }
        guard let bytes = Base64URL.decode(allowingPadding: uri.dropFirst(5)) else {
            throw .invalidURI("the part after \"mdoc:\" is not base64url")
        }
        try self.init(bytes: bytes)
    }

    /// The BLE options, if the engagement offers BLE.
    public var bleOptions: BleOptions? {
        for method in retrievalMethods {
            if case .ble(_, let options) = method { return options }
        }
        return nil
    }
}

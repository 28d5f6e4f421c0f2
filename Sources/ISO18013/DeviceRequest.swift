import CBOR
import COSE

/// `DocRequest = {"itemsRequest": ItemsRequestBytes, ? "readerAuth": ReaderAuth}`.
public struct DocRequest: Sendable, Hashable {
    /// ItemsRequestBytes, bytes kept: reader authentication signs them.
    public let itemsRequestBytes: EmbeddedCBOR
    public let itemsRequest: ItemsRequest
    public let readerAuth: COSESign1?

    public init(itemsRequest: ItemsRequest, readerAuth: COSESign1? = nil) {
        self.itemsRequestBytes = EmbeddedCBOR(itemsRequest.cbor)
        self.itemsRequest = itemsRequest
        self.readerAuth = readerAuth
    }

    public init(itemsRequestBytes: EmbeddedCBOR, readerAuth: COSESign1?) throws(ISO18013Error) {
        self.itemsRequestBytes = itemsRequestBytes
        self.itemsRequest = try ItemsRequest(cbor: itemsRequestBytes.value)
        self.readerAuth = readerAuth
    }

    init(cbor value: CBOR) throws(ISO18013Error) {
        let s = "DocRequest"
        _ = try Read.map(value, s)
        let bytes = try Read.embedded(value["itemsRequest"], s, "itemsRequest")
        let auth = try value["readerAuth"].map { (v) throws(ISO18013Error) in try Read.sign1(v, "readerAuth") }
        try self.init(itemsRequestBytes: bytes, readerAuth: auth)
    }

    var cbor: CBOR {
        var entries = [CBORMapEntry("itemsRequest", .embedded(itemsRequestBytes))]
        if let readerAuth { entries.append(CBORMapEntry("readerAuth", readerAuth.cbor)) }
        return .map(entries)
    }
}

/// The DeviceRequest version a reader sends: "1.0" (first edition: per-document readerAuth
/// only) or "1.1" (second edition: `deviceRequestInfo` and `readerAuthAll` too).
public enum DeviceRequestVersion: String, Sendable, CaseIterable {
    case firstEdition = "1.0"
    case secondEdition = "1.1"

    /// What a reader sends by default to a holder with `engagement`: "1.1" to a "1.1" (or
    /// later) engagement, "1.0" to a first-edition one.
    public static func `default`(for engagement: DeviceEngagement) -> Self {
        DeviceRequest.isFirstEdition(engagement.version) ? .firstEdition : .secondEdition
    }
}

/// `DeviceRequest = {"version": tstr, "docRequests": [+ DocRequest], ? "deviceRequestInfo":
/// DeviceRequestInfoBytes, ? "readerAuthAll": [+ ReaderAuthAll]}` (8.3.2.1.2.1; version
/// "1.1" adds the last two).
public struct DeviceRequest: Sendable, Hashable {
    public let version: String
    public let docRequests: [DocRequest]
    /// DeviceRequestInfoBytes (1.1), bytes kept.
    public let deviceRequestInfo: EmbeddedCBOR?
    /// Reader authentication over all doc requests (1.1).
    public let readerAuthAll: [COSESign1]

    public init(
        docRequests: [DocRequest], version: String = "1.0", deviceRequestInfo: EmbeddedCBOR? = nil,
        readerAuthAll: [COSESign1] = []
    ) {
        self.version = version
        self.docRequests = docRequests
        self.deviceRequestInfo = deviceRequestInfo
        self.readerAuthAll = readerAuthAll
    }

    /// The most DocRequests one DeviceRequest may carry: each may bring a reader certificate
    /// chain and a signature to verify, so the count bounds the work one request causes
    /// (readers ask for one to three documents).
    public static let maximumDocRequests = 64
    /// Whether `version` is the first edition's "1.0", which has no `deviceRequestInfo` and
    /// no `readerAuthAll` (both ignored there).
    public static func isFirstEdition(_ version: String) -> Bool { version == "1.0" }

    /// The most signatures in `readerAuthAll`.
    public static let maximumReaderAuthAll = 8

    public init(bytes: [UInt8], limits: CBORDecodingLimits = .default) throws(ISO18013Error) {
        let s = "DeviceRequest"
        let value = try Read.map(Read.decode(bytes, as: s, limits: limits), s)
        version = try Read.text(value["version"], s, "version")
        guard version.hasPrefix("1.") else {
            throw .invalid(structure: s, reason: "unsupported version \(version)")
        }
        let requests = try Read.array(value["docRequests"], s, "docRequests")
        guard !requests.isEmpty else { throw .invalid(structure: s, reason: "docRequests is empty") }
        guard requests.count <= Self.maximumDocRequests else {
            throw .invalid(
                structure: s,
                reason: "docRequests has \(requests.count) entries; at most \(Self.maximumDocRequests) are taken")
        }
        var parsed: [DocRequest] = []
        for r in requests { parsed.append(try DocRequest(cbor: r)) }
        docRequests = parsed
        // A "1.0" request has neither member: one that carries them anyway has them ignored
        // (not read, not an error, no authentication from them), as multipaz does.
        guard !Self.isFirstEdition(version) else {
            deviceRequestInfo = nil
            readerAuthAll = []
            return
        }
        deviceRequestInfo = try value["deviceRequestInfo"].map { (v) throws(ISO18013Error) in
            try Read.embedded(v, s, "deviceRequestInfo")
        }
        var all: [COSESign1] = []
        if let items = value["readerAuthAll"] {
            let signatures = try Read.array(items, s, "readerAuthAll")
            guard signatures.count <= Self.maximumReaderAuthAll else {
                throw .invalid(
                    structure: s,
                    reason:
                        "readerAuthAll has \(signatures.count) signatures; at most \(Self.maximumReaderAuthAll) are taken"
                )
            }
            for item in signatures { all.append(try Read.sign1(item, "readerAuthAll")) }
        }
        readerAuthAll = all
    }

    public var cbor: CBOR {
        var entries: [CBORMapEntry] = [
            CBORMapEntry("version", .text(version)), CBORMapEntry("docRequests", .array(docRequests.map(\.cbor))),
        ]
        if let deviceRequestInfo { entries.append(CBORMapEntry("deviceRequestInfo", .embedded(deviceRequestInfo))) }
        if !readerAuthAll.isEmpty { entries.append(CBORMapEntry("readerAuthAll", .array(readerAuthAll.map(\.cbor)))) }
        return .map(entries)
    }

    public var encoded: [UInt8] { cbor.encoded() }
}

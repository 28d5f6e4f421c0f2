import CBOR

/// The DeviceEngagement version: "1.0" (first edition) or "1.1" (second edition, with
/// OriginInfos and Capabilities). `present --engagement-version` and `serve`'s take these.
public enum EngagementVersion: String, Sendable, CaseIterable {
    case firstEdition = "1.0"
    case secondEdition = "1.1"
}

/// `Capabilities = {* int => any}`, DeviceEngagement key 6 (18013-5 second edition,
/// 8.2.1.1): 2 handover session establishment support, 3 ReaderAuthAll support, 4 extended
/// request support. Keys it does not know are kept and ignored.
public struct DeviceCapabilities: Sendable, Hashable {
    /// DeviceEngagement key of OriginInfos.
    public static let originInfosKey: UInt64 = 5
    /// DeviceEngagement key of Capabilities.
    public static let engagementKey: UInt64 = 6
    /// Capabilities key: handover session establishment support.
    public static let handoverSessionEstablishmentSupportKey: UInt64 = 2
    /// Capabilities key: the holder verifies `readerAuthAll`.
    public static let readerAuthAllSupportKey: UInt64 = 3
    /// Capabilities key: the holder answers extended requests (DeviceRequestInfo use cases,
    /// requestInfo alternatives, maximumResponseSize, ...).
    public static let extendedRequestSupportKey: UInt64 = 4

    /// The map as it travelled (or as we send it), in order.
    public let entries: [CBORMapEntry]

    /// What our holder advertises: ReaderAuthAll and extended request support (the form
    /// Apple Wallet and multipaz send).
    public static let holderDefault = DeviceCapabilities(entries: [
        CBORMapEntry(.int(Int(readerAuthAllSupportKey)), true),
        CBORMapEntry(.int(Int(extendedRequestSupportKey)), true),
    ])

    public init(entries: [CBORMapEntry]) { self.entries = entries }

    /// Reads key 6's value; nil when it is not a map.
    public init?(cbor: CBOR) {
        guard let entries = cbor.mapEntries else { return nil }
        self.entries = entries
    }

    public var cbor: CBOR { .map(entries) }

    /// Whether capability `key` is the boolean true (any other value, or none: not supported).
    public func supports(_ key: UInt64) -> Bool {
        entries.first { $0.key.uint64Value == key }?.value.boolValue == true
    }

    public var readerAuthAllSupport: Bool { supports(Self.readerAuthAllSupportKey) }
    public var extendedRequestSupport: Bool { supports(Self.extendedRequestSupportKey) }
    public var handoverSessionEstablishmentSupport: Bool { supports(Self.handoverSessionEstablishmentSupportKey) }

    /// The supported capabilities in words ("ReaderAuthAll, extended requests"), for display.
    public var summary: String {
        let named: [(Bool, String)] = [
            (handoverSessionEstablishmentSupport, "handover session establishment"),
            (readerAuthAllSupport, "ReaderAuthAll"), (extendedRequestSupport, "extended requests"),
        ]
        let shown = named.filter(\.0).map(\.1)
        return shown.isEmpty ? "none" : shown.joined(separator: ", ")
    }
}

import CBOR
import ISO18013

/// The second edition's DeviceEngagement keys (18013-5 second edition, 8.2.1.1): 5
/// OriginInfos (an array; empty for a QR engagement) and 6 Capabilities (a map: 3
/// ReaderAuthAll support, 4 extended request support, each a boolean). A "1.0" engagement
/// has neither. Both keys are read from the engagement once, when this is made.
struct EngagementCapabilities {
    static let originInfos = 5
    static let capabilities = 6
    /// Capabilities key 3: the holder verifies `readerAuthAll`.
    static let readerAuthAllSupport = 3
    /// Capabilities key 4: the holder answers extended requests (requestInfo's
    /// alternativeDataElements, maximumResponseSize, ...; DeviceRequestInfo use cases).
    static let extendedRequestSupport = 4

    /// A "1.0" engagement.
    let isFirstEdition: Bool
    /// Keys 5 and 6 as the engagement carries them, when present.
    let origin: CBOR?
    let capabilitiesValue: CBOR?

    init(of engagement: DeviceEngagement) {
        isFirstEdition = DeviceRequest.isFirstEdition(engagement.version)
        origin = engagement.otherEntries.first { $0.key.intValue == Self.originInfos }?.value
        capabilitiesValue = engagement.otherEntries.first { $0.key.intValue == Self.capabilities }?.value
    }

    /// Whether the engagement is "1.1" or later with Capabilities `capability` = true.
    func advertises(_ capability: Int) -> Bool {
        guard !isFirstEdition, case .map(let entries)? = capabilitiesValue else { return false }
        return entries.first { $0.key.intValue == capability }?.value.boolValue == true
    }

    /// What breaks the second edition's rules for keys 5 and 6 (empty: nothing).
    var problems: [String] {
        if isFirstEdition {
            return [origin.map { _ in "key 5 (OriginInfos)" }, capabilitiesValue.map { _ in "key 6 (Capabilities)" }]
                .compactMap { $0 }.map { "a \"1.0\" engagement with \($0), which only \"1.1\" has" }
        }
        var problems: [String] = []
        if let origin, origin.arrayValue == nil {
            problems.append("key 5 (OriginInfos) is not an array")
        }
        if let capabilitiesValue {
            guard case .map(let entries) = capabilitiesValue else {
                return problems + ["key 6 (Capabilities) is not a map"]
            }
            for key in [Self.readerAuthAllSupport, Self.extendedRequestSupport] {
                if let value = entries.first(where: { $0.key.intValue == key })?.value, value.boolValue == nil {
                    problems.append("Capabilities key \(key) is not a boolean")
                }
            }
        }
        return problems
    }

    /// Keys 5 and 6 in words, for a pass reason.
    var summary: String {
        let origins = origin.flatMap(\.arrayValue).map { "\($0.count) OriginInfo(s)" }
        let shown = [Self.readerAuthAllSupport: "ReaderAuthAll", Self.extendedRequestSupport: "extended requests"]
            .sorted { $0.key < $1.key }
            .filter { advertises($0.key) }.map(\.value)
        return [
            origins ?? "no OriginInfos",
            shown.isEmpty ? "no capability advertised" : "supports " + shown.joined(separator: " and "),
        ]
        .joined(separator: ", ")
    }
}

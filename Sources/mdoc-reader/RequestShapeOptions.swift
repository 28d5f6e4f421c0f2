import ArgumentParser
import CBOR
import ISO18013

/// The second-edition request shapes a tester can send with `mdoc-reader request`: the
/// extended `requestInfo` of the ItemsRequest (alternatives, issuer identifiers,
/// uniqueDocSetRequired, maximumResponseSize) and the use cases of `deviceRequestInfo`. All
/// go only into a "1.1" DeviceRequest; with `--request-version 1.0` the requestInfo keys are
/// still sent (a first-edition holder ignores them) and deviceRequestInfo is not.
struct RequestShapeOptions: ParsableArguments {
    @Option(
        name: .customLong("alternative"),
        help: ArgumentHelp(
            "An alternative for a requested element: ns:id=ns:id,ns:id (the set answering in its place). "
                + "Repeatable; a second set for the same element is the next alternative.",
            valueName: "ns:id=ns:id,..."))
    var alternatives: [String] = []

    @Option(
        name: .customLong("issuer-identifier"),
        help: ArgumentHelp(
            "Only credentials of this issuer match: the IACA's key identifier in hex. Repeatable.", valueName: "hex"))
    var issuerIdentifiers: [String] = []

    @Option(help: "uniqueDocSetRequired: true or false.")
    var uniqueDocSetRequired: Bool?

    @Option(name: .customLong("max-response-size"), help: "maximumResponseSize: the most bytes of the DeviceResponse.")
    var maximumResponseSize: Int?

    @Option(
        name: .customLong("use-case"),
        help: ArgumentHelp(
            "A use case answered by the requested document: mandatory or optional, then purpose hints as "
                + ",controller=code (e.g. mandatory,org.example=3). Repeatable.",
            valueName: "mandatory|optional[,id=code...]"))
    var useCases: [String] = []

    /// The DocRequestInfo these options give.
    func docRequestInfo() throws -> DocRequestInfo {
        var info = DocRequestInfo(uniqueDocSetRequired: uniqueDocSetRequired, maximumResponseSize: maximumResponseSize)
        if let size = maximumResponseSize, size < 0 { throw ReaderCLIError("--max-response-size must not be negative") }
        for text in alternatives {
            let parts = text.split(separator: "=", maxSplits: 1).map(String.init)
            guard parts.count == 2 else { throw ReaderCLIError("--alternative \(text): expected ns:id=ns:id,...") }
            let requested = try Self.reference(parts[0])
            let set = try parts[1].split(separator: ",").map { try Self.reference(String($0)) }
            guard !set.isEmpty else { throw ReaderCLIError("--alternative \(text): no alternative elements") }
            if let index = info.alternativeDataElements.firstIndex(where: { $0.requestedElement == requested }) {
                info.alternativeDataElements[index].alternativeElementSets.append(set)
            } else {
                info.alternativeDataElements.append(.init(requestedElement: requested, alternativeElementSets: [set]))
            }
        }
        if !issuerIdentifiers.isEmpty {
            info.issuerIdentifiers = try issuerIdentifiers.map { hex in
                guard let bytes = Hex.decode(hex), !bytes.isEmpty else {
                    throw ReaderCLIError("--issuer-identifier \(hex): expected hex digits")
                }
                return bytes
            }
        }
        return info
    }

    /// `items` with these options' requestInfo keys (nothing added when none is given).
    func apply(to items: ItemsRequest) throws -> ItemsRequest {
        let entries = try docRequestInfo().entries
        guard !entries.isEmpty else { return items }
        var items = items
        items.requestInfo = (items.requestInfo ?? []) + entries
        return items
    }

    /// DeviceRequestInfoBytes for the use cases, each answered by DocRequest 0.
    func deviceRequestInfo() throws -> EmbeddedCBOR? {
        guard !useCases.isEmpty else { return nil }
        let parsed = try useCases.map { text in
            var parts = text.split(separator: ",").map(String.init)
            let kind = parts.isEmpty ? "" : parts.removeFirst()
            guard kind == "mandatory" || kind == "optional" else {
                throw ReaderCLIError("--use-case \(text): start with mandatory or optional")
            }
            var hints: [String: Int] = [:]
            for hint in parts {
                let pair = hint.split(separator: "=", maxSplits: 1).map(String.init)
                guard pair.count == 2, let code = Int(pair[1]) else {
                    throw ReaderCLIError("--use-case \(text): a purpose hint is controller=code")
                }
                hints[pair[0]] = code
            }
            return DeviceRequestInfo.UseCase(mandatory: kind == "mandatory", documentSets: [[0]], purposeHints: hints)
        }
        return EmbeddedCBOR(DeviceRequestInfo(useCases: parsed).cbor)
    }

    private static func reference(_ text: String) throws -> ElementReference {
        guard let colon = text.lastIndex(of: ":"), colon != text.startIndex, text.index(after: colon) != text.endIndex
        else { throw ReaderCLIError("\(text): expected namespace:element") }
        return ElementReference(String(text[..<colon]), String(text[text.index(after: colon)...]))
    }
}

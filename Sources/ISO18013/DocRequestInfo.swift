import CBOR

/// `ElementReference = [NameSpace, DataElementIdentifier]` (second edition).
public struct ElementReference: Sendable, Hashable, Comparable, CustomStringConvertible {
    public var nameSpace: String
    public var identifier: String

    public init(_ nameSpace: String, _ identifier: String) {
        self.nameSpace = nameSpace
        self.identifier = identifier
    }

    public var description: String { "\(nameSpace):\(identifier)" }
    public static func < (a: Self, b: Self) -> Bool { (a.nameSpace, a.identifier) < (b.nameSpace, b.identifier) }

    var cbor: CBOR { .array([.text(nameSpace), .text(identifier)]) }
}

/// The extended `requestInfo` of an ItemsRequest (ISO/IEC 18013-5 second edition,
/// `DocRequestInfo`):
///
/// ```
/// DocRequestInfo = {
///   ? "alternativeDataElements": [+ AlternativeDataElementsSet],
///   ? "issuerIdentifiers": [+ IssuerIdentifier],   ; bstr: an IACA's key identifier
///   ? "uniqueDocSetRequired": bool,
///   ? "maximumResponseSize": uint,                 ; bytes of the DeviceResponse
///   ? "zkRequest": ..., ? "docResponseEncryption": ...,
///   * tstr => any
/// }
/// AlternativeDataElementsSet = {"requestedElement": ElementReference,
///                               "alternativeElementSets": [+ [+ ElementReference]]}
/// ```
///
/// An element the credential lacks may be answered by the first alternative set it holds
/// whole; only credentials whose issuer (the authorityKeyIdentifier of the document signer
/// certificate, i.e. the IACA's key identifier) is listed match; `uniqueDocSetRequired` asks
/// for one document per DocRequest (what this holder always answers); the DeviceResponse
/// never exceeds `maximumResponseSize`. Keys not read here (zkRequest, docResponseEncryption,
/// vendor keys) stay in ``ItemsRequest/requestInfo``, unused.
public struct DocRequestInfo: Sendable, Hashable {
    /// One `AlternativeDataElementsSet`.
    public struct Alternatives: Sendable, Hashable {
        public var requestedElement: ElementReference
        /// The reader's preferred set first.
        public var alternativeElementSets: [[ElementReference]]

        public init(requestedElement: ElementReference, alternativeElementSets: [[ElementReference]]) {
            self.requestedElement = requestedElement
            self.alternativeElementSets = alternativeElementSets
        }
    }

    public var alternativeDataElements: [Alternatives]
    public var issuerIdentifiers: [[UInt8]]?
    public var uniqueDocSetRequired: Bool?
    public var maximumResponseSize: Int?

    public init(
        alternativeDataElements: [Alternatives] = [], issuerIdentifiers: [[UInt8]]? = nil,
        uniqueDocSetRequired: Bool? = nil, maximumResponseSize: Int? = nil
    ) {
        self.alternativeDataElements = alternativeDataElements
        self.issuerIdentifiers = issuerIdentifiers
        self.uniqueDocSetRequired = uniqueDocSetRequired
        self.maximumResponseSize = maximumResponseSize
    }

    /// The most entries of any list read here (alternatives, sets, elements, issuers).
    public static let maximumListLength = 64

    /// Reads the keys this holder knows from the `requestInfo` entries.
    public init(entries: [CBORMapEntry]) throws(ISO18013Error) {
        let s = "DocRequestInfo"
        let value = CBOR.map(entries)
        self.init()
        if let list = value["alternativeDataElements"] {
            for item in try Self.bounded(Read.array(list, s, "alternativeDataElements"), "alternativeDataElements") {
                let requested = try Self.reference(item["requestedElement"])
                var sets: [[ElementReference]] = []
                let raw = try Self.bounded(
                    Read.array(item["alternativeElementSets"], s, "alternativeElementSets"), "alternativeElementSets")
                for set in raw {
                    var references: [ElementReference] = []
                    for ref in try Self.bounded(Read.array(set, s, "an alternative set"), "an alternative set") {
                        references.append(try Self.reference(ref))
                    }
                    sets.append(references)
                }
                alternativeDataElements.append(Alternatives(requestedElement: requested, alternativeElementSets: sets))
            }
        }
        if let list = value["issuerIdentifiers"] {
            var identifiers: [[UInt8]] = []
            for item in try Self.bounded(Read.array(list, s, "issuerIdentifiers"), "issuerIdentifiers") {
                identifiers.append(try Read.bytes(item, s, "an issuer identifier"))
            }
            issuerIdentifiers = identifiers
        }
        if let flag = value["uniqueDocSetRequired"] {
            guard let bool = flag.boolValue else {
                throw .invalid(structure: s, reason: "uniqueDocSetRequired is not a bool")
            }
            uniqueDocSetRequired = bool
        }
        if let size = value["maximumResponseSize"] {
            maximumResponseSize = Int(clamping: try Read.uint(size, s, "maximumResponseSize"))
        }
    }

    private static func reference(_ value: CBOR?) throws(ISO18013Error) -> ElementReference {
        guard let pair = value?.arrayValue, pair.count == 2, let ns = pair[0].textValue, let id = pair[1].textValue
        else { throw .invalid(structure: "DocRequestInfo", reason: "an ElementReference is not [namespace, element]") }
        return ElementReference(ns, id)
    }

    private static func bounded<T>(_ list: [T], _ field: String) throws(ISO18013Error) -> [T] {
        try Read.bounded(list, "DocRequestInfo", field, limit: maximumListLength)
    }

    /// The entries this value writes into a `requestInfo` map (the reader side).
    public var entries: [CBORMapEntry] {
        var entries: [CBORMapEntry] = []
        if !alternativeDataElements.isEmpty {
            let sets = alternativeDataElements.map { alternatives in
                CBOR.map([
                    CBORMapEntry("requestedElement", alternatives.requestedElement.cbor),
                    CBORMapEntry(
                        "alternativeElementSets",
                        .array(alternatives.alternativeElementSets.map { .array($0.map(\.cbor)) })),
                ])
            }
            entries.append(CBORMapEntry("alternativeDataElements", .array(sets)))
        }
        if let issuerIdentifiers {
            entries.append(CBORMapEntry("issuerIdentifiers", .array(issuerIdentifiers.map { .bytes($0) })))
        }
        if let uniqueDocSetRequired {
            entries.append(CBORMapEntry("uniqueDocSetRequired", .bool(uniqueDocSetRequired)))
        }
        if let maximumResponseSize {
            entries.append(CBORMapEntry("maximumResponseSize", .unsigned(UInt64(maximumResponseSize))))
        }
        return entries
    }

    /// The alternatives for `element`, if the reader gave any.
    public func alternatives(for element: ElementReference) -> [[ElementReference]] {
        alternativeDataElements.first { $0.requestedElement == element }?.alternativeElementSets ?? []
    }
}

extension ItemsRequest {
    /// The second-edition `requestInfo` keys this holder knows (empty when there is none).
    public func docRequestInfo() throws(ISO18013Error) -> DocRequestInfo {
        guard let requestInfo else { return DocRequestInfo() }
        return try DocRequestInfo(entries: requestInfo)
    }
}

extension Read {
    /// `list` when it is non-empty (CDDL `[+ ...]`, `{+ ...}`) and has at most `limit` entries.
    static func bounded<T>(_ list: [T], _ structure: String, _ field: String, limit: Int) throws(ISO18013Error) -> [T] {
        guard !list.isEmpty else { throw .invalid(structure: structure, reason: "\(field) is empty") }
        guard list.count <= limit else {
            throw .invalid(
                structure: structure, reason: "\(field) has \(list.count) entries; at most \(limit) are taken")
        }
        return list
    }
}

import CBOR

/// `ItemsRequest = {"docType": tstr, "nameSpaces": {+ NameSpace => {+ DataElementIdentifier
/// => IntentToRetain}}, ? "requestInfo": {* tstr => any}}` (8.3.2.1.2.1).
public struct ItemsRequest: Sendable, Hashable {
    /// One requested element.
    public struct Element: Sendable, Hashable {
        public var identifier: String
        public var intentToRetain: Bool
        public init(_ identifier: String, intentToRetain: Bool = false) {
            self.identifier = identifier
            self.intentToRetain = intentToRetain
        }
    }

    /// The elements requested in one namespace, in request order.
    public struct NameSpace: Sendable, Hashable {
        public var name: String
        public var elements: [Element]
        public init(_ name: String, _ elements: [Element]) {
            self.name = name
            self.elements = elements
        }
    }

    public var docType: String
    public var nameSpaces: [NameSpace]
    public var requestInfo: [CBORMapEntry]?

    public init(docType: String, nameSpaces: [NameSpace], requestInfo: [CBORMapEntry]? = nil) {
        self.docType = docType
        self.nameSpaces = nameSpaces
        self.requestInfo = requestInfo
    }

    /// The most data elements one ItemsRequest may name, over all its namespaces (an mDL
    /// defines about forty): each becomes a line of the consent dialogue.
    public static let maximumElements = 1024

    public init(cbor value: CBOR) throws(ISO18013Error) {
        let s = "ItemsRequest"
        docType = try Read.text(value["docType"], s, "docType")
        var spaces: [NameSpace] = []
        var total = 0
        for entry in try Read.entries(value["nameSpaces"], s, "nameSpaces") {
            guard let name = entry.key.textValue, case .map(let items) = entry.value else {
                throw .invalid(structure: s, reason: "a namespace is not a text key with a map of elements")
            }
            total += items.count
            guard total <= Self.maximumElements else {
                throw .invalid(
                    structure: s,
                    reason: "more than \(Self.maximumElements) data elements are requested in one document")
            }
            var elements: [Element] = []
            for item in items {
                guard let id = item.key.textValue, let retain = item.value.boolValue else {
                    throw .invalid(structure: s, reason: "an element in \(name) is not identifier => bool")
                }
                elements.append(Element(id, intentToRetain: retain))
            }
            // `DataElements = {+ DataElement => IntentToRetain}`: at least one element.
            guard !elements.isEmpty else {
                throw .invalid(structure: s, reason: "namespace \(name) requests no data elements")
            }
            spaces.append(NameSpace(name, elements))
        }
        // `NameSpaces = {+ NameSpace => DataElements}`: at least one namespace.
        guard !spaces.isEmpty else { throw .invalid(structure: s, reason: "nameSpaces is empty") }
        nameSpaces = spaces
        if let info = value["requestInfo"] {
            requestInfo = try Read.entries(info, s, "requestInfo")
        }
    }

    public var cbor: CBOR {
        var entries: [CBORMapEntry] = [
            CBORMapEntry("docType", .text(docType)),
            CBORMapEntry(
                "nameSpaces",
                .map(
                    nameSpaces.map { ns in
                        CBORMapEntry(
                            .text(ns.name),
                            .map(ns.elements.map { CBORMapEntry(.text($0.identifier), .bool($0.intentToRetain)) }))
                    })),
        ]
        if let requestInfo { entries.append(CBORMapEntry("requestInfo", .map(requestInfo))) }
        return .map(entries)
    }

    /// Every requested (namespace, element), in order.
    public var requestedElements: [(nameSpace: String, element: Element)] {
        nameSpaces.flatMap { ns in ns.elements.map { (ns.name, $0) } }
    }
}

import CBOR
import COSE

/// `IssuerSigned = {? "nameSpaces": IssuerNameSpaces, "issuerAuth": IssuerAuth}`.
public struct IssuerSigned: Sendable, Hashable {
    /// namespace => items, in the order they came.
    public struct NameSpace: Sendable, Hashable {
        public var name: String
        public var items: [IssuerSignedItem]
        public init(_ name: String, _ items: [IssuerSignedItem]) {
            self.name = name
            self.items = items
        }
    }

    public var nameSpaces: [NameSpace]
    /// COSE_Sign1 over MobileSecurityObjectBytes, with the document signer in x5chain.
    public var issuerAuth: COSESign1

    public init(nameSpaces: [NameSpace], issuerAuth: COSESign1) {
        self.nameSpaces = nameSpaces
        self.issuerAuth = issuerAuth
    }

    public init(cbor value: CBOR) throws(ISO18013Error) {
        let s = "IssuerSigned"
        _ = try Read.map(value, s)
        issuerAuth = try Read.sign1(value["issuerAuth"], "issuerAuth")
        var spaces: [NameSpace] = []
        if let ns = value["nameSpaces"] {
            for entry in try Read.entries(ns, s, "nameSpaces") {
                guard let name = entry.key.textValue, case .array(let items) = entry.value else {
                    throw .invalid(structure: s, reason: "a namespace is not tstr => [IssuerSignedItemBytes]")
                }
                var parsed: [IssuerSignedItem] = []
                for item in items {
                    parsed.append(try IssuerSignedItem(bytes: Read.embedded(item, s, "IssuerSignedItemBytes")))
                }
                spaces.append(NameSpace(name, parsed))
            }
        }
        nameSpaces = spaces
    }

    public init(bytes: [UInt8]) throws(ISO18013Error) {
        try self.init(cbor: Read.decode(bytes, as: "IssuerSigned"))
    }

    public var cbor: CBOR {
        var entries: [CBORMapEntry] = []
        if !nameSpaces.isEmpty {
            entries.append(
                CBORMapEntry(
                    "nameSpaces",
                    .map(nameSpaces.map { CBORMapEntry(.text($0.name), .array($0.items.map { .embedded($0.bytes) })) }))
            )
        }
        entries.append(CBORMapEntry("issuerAuth", issuerAuth.cbor))
        return .map(entries)
    }

    /// MobileSecurityObjectBytes: the issuerAuth payload (`#6.24(bstr .cbor MSO)`).
    public func mobileSecurityObject() throws(ISO18013Error) -> (bytes: [UInt8], mso: MobileSecurityObject) {
        guard let payload = issuerAuth.payload else {
            throw .invalid(structure: "issuerAuth", reason: "payload is detached; it must carry the MSO")
        }
        let tagged = try Read.decode(payload, as: "MobileSecurityObjectBytes")
        guard case .embedded(let inner) = tagged else {
            throw .invalid(structure: "issuerAuth", reason: "payload is not MobileSecurityObjectBytes (tag 24)")
        }
        return (payload, try MobileSecurityObject(cbor: inner.value))
    }

    /// The same credential keeping only the elements in `approved` (namespace => element
    /// identifiers). Items are the issued bytes, unchanged.
    public func disclosing(_ approved: [String: Set<String>]) -> IssuerSigned {
        let kept = nameSpaces.compactMap { ns -> NameSpace? in
            guard let ids = approved[ns.name] else { return nil }
            let items = ns.items.filter { ids.contains($0.elementIdentifier) }
            return items.isEmpty ? nil : NameSpace(ns.name, items)
        }
        return IssuerSigned(nameSpaces: kept, issuerAuth: issuerAuth)
    }
}

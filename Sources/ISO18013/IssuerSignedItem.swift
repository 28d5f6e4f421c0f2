import CBOR

/// `IssuerSignedItem = {"digestID": uint, "random": bstr, "elementIdentifier": tstr,
/// "elementValue": any}`, carried as IssuerSignedItemBytes (tag 24) whose exact bytes are
/// digested in the MSO.
public struct IssuerSignedItem: Sendable, Hashable {
    /// IssuerSignedItemBytes as issued: sent unchanged, digested as `taggedEncoding`.
    public let bytes: EmbeddedCBOR
    public let digestID: UInt64
    public let random: [UInt8]
    public let elementIdentifier: String
    public let elementValue: CBOR

    public init(bytes: EmbeddedCBOR) throws(ISO18013Error) {
        let s = "IssuerSignedItem"
        let value = try Read.map(bytes.value, s)
        digestID = try Read.uint(value["digestID"], s, "digestID")
        random = try Read.bytes(value["random"], s, "random")
        elementIdentifier = try Read.text(value["elementIdentifier"], s, "elementIdentifier")
        guard let v = value["elementValue"] else { throw .invalid(structure: s, reason: "elementValue missing") }
        elementValue = v
        self.bytes = bytes
    }

    /// Issues a new item (test issuer): encoded once, in the standard's field order.
    public init(digestID: UInt64, random: [UInt8], elementIdentifier: String, elementValue: CBOR) {
        self.digestID = digestID
        self.random = random
        self.elementIdentifier = elementIdentifier
        self.elementValue = elementValue
        self.bytes = EmbeddedCBOR([
            "digestID": .unsigned(digestID), "random": .bytes(random), "elementIdentifier": .text(elementIdentifier),
            "elementValue": elementValue,
        ])
    }
}

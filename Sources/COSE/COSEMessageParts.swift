import CBOR

/// The four members shared by COSE_Sign1 and COSE_Mac0: `[protected, unprotected,
/// payload / nil, signature-or-tag]`, untagged or with the message's own tag.
struct COSEMessageParts {
    let protected: COSEProtectedHeader
    let unprotected: [CBORMapEntry]
    let payload: [UInt8]?
    let last: [UInt8]

    init(_ cbor: CBOR, tag: UInt64, name: String, lastName: String) throws(COSEError) {
        var item = cbor
        if case .tagged(tag, let inner) = cbor { item = inner }
        guard case .array(let parts) = item, parts.count == 4 else {
            throw .malformed("\(name) is not an array of 4")
        }
        guard case .bytes(let protectedBytes) = parts[0] else { throw .malformed("protected header is not a bstr") }
        guard case .map(let unprotected) = parts[1] else { throw .malformed("unprotected header is not a map") }
        switch parts[2] {
        case .bytes(let p): payload = p
        case .null: payload = nil
        default: throw .malformed("payload is neither a bstr nor null")
        }
        guard case .bytes(let last) = parts[3] else { throw .malformed("\(lastName) is not a bstr") }
        self.protected = try COSEProtectedHeader(bytes: protectedBytes)
        self.unprotected = unprotected
        self.last = last
    }
}

import CBOR

/// The documents of a file an issuer handed out, found leniently.
///
/// Accepted shapes (binary CBOR, or the same as hex text, as pymdoccbor's `dumps()` writes):
/// - a bare IssuerSigned: `{"nameSpaces", "issuerAuth"}`;
/// - a Document: `{"docType", "issuerSigned", ...}` (deviceSigned and errors are ignored);
/// - a DeviceResponse-shaped container: `{"version", "documents": [Document...], "status"}`,
///   which pymdoccbor's MdocCborIssuer writes (its documents have no deviceSigned);
/// - an array of Documents or IssuerSigned maps.
///
/// Each document's IssuerSigned is kept as CBOR bytes: a bare IssuerSigned file's own bytes,
/// otherwise the `issuerSigned` value re-encoded. Re-encoding keeps every tag-24 item (the
/// IssuerSignedItemBytes) and every byte string (the COSE protected header, the MSO payload,
/// the signature) exactly as received, so every digest and the signature still hold.
struct CredentialFile {
    struct Entry {
        /// 1-based position in the file.
        var index: Int
        /// The Document's docType; nil for a bare IssuerSigned (the MSO's is used).
        var docType: String?
        var issuerSignedBytes: [UInt8]
    }

    var entries: [Entry]

    init(bytes fileBytes: [UInt8]) throws(WalletError) {
        let (value, bytes) = try Self.decode(fileBytes)
        switch value {
        case .map:
            if let documents = value["documents"] {
                guard case .array(let items) = documents else {
                    throw .nothingToImport(reason: "\"documents\" is a \(documents.kindName), not an array")
                }
                guard !items.isEmpty else { throw .nothingToImport(reason: "the file's \"documents\" array is empty") }
                entries = try items.enumerated().map { (offset, item) throws(WalletError) in
                    try Self.entry(item, index: offset + 1)
                }
            } else if value["issuerSigned"] != nil {
                entries = [try Self.entry(value, index: 1)]
            } else if value["issuerAuth"] != nil {
                entries = [Entry(index: 1, docType: nil, issuerSignedBytes: bytes)]
            } else {
                throw .nothingToImport(
                    reason: "the file is a CBOR map without \"documents\", \"issuerSigned\" or \"issuerAuth\"")
            }
        case .array(let items):
            guard !items.isEmpty else { throw .nothingToImport(reason: "the file is an empty CBOR array") }
            entries = try items.enumerated().map { (offset, item) throws(WalletError) in
                try Self.entry(item, index: offset + 1)
            }
        default:
            throw .nothingToImport(reason: "the file holds a CBOR \(value.kindName), not a map")
        }
    }

    /// One member of a `documents` array (or of a top-level array): a Document or an
    /// IssuerSigned.
    private static func entry(_ item: CBOR, index: Int) throws(WalletError) -> Entry {
        guard case .map = item else {
            throw .malformedDocument(document: index, reason: "it is a CBOR \(item.kindName), not a map")
        }
        if let issuerSigned = item["issuerSigned"] {
            guard case .map = issuerSigned else {
                throw .malformedDocument(
                    document: index, reason: "issuerSigned is a \(issuerSigned.kindName), not a map")
            }
            var docType: String?
            if let declared = item["docType"] {
                guard let text = declared.textValue else {
                    throw .malformedDocument(document: index, reason: "docType is not a text string")
                }
                docType = text
            }
            return Entry(index: index, docType: docType, issuerSignedBytes: issuerSigned.encoded())
        }
        if item["issuerAuth"] != nil {
            return Entry(index: index, docType: nil, issuerSignedBytes: item.encoded())
        }
        throw .malformedDocument(document: index, reason: "it has neither issuerSigned nor issuerAuth")
    }

    /// The CBOR value of the file and the bytes it was decoded from (the file, or the bytes
    /// its hex text spells).
    private static func decode(_ fileBytes: [UInt8]) throws(WalletError) -> (CBOR, [UInt8]) {
        guard !fileBytes.isEmpty else { throw .unreadableFile(reason: "the file is empty") }
        let binaryError: CBORError
        do {
            return (try CBOR.decode(fileBytes), fileBytes)
        } catch {
            binaryError = error
        }
        if let bytes = hexDecoded(fileBytes) {
            do {
                return (try CBOR.decode(bytes), bytes)
            } catch {
                throw .unreadableFile(reason: "its hex text is not CBOR (\(error))")
            }
        }
        throw .unreadableFile(reason: "\(binaryError)")
    }

    /// The bytes of hex text (whitespace ignored, optional "0x" prefix), or nil when the file
    /// is not hex text.
    static func hexDecoded(_ text: [UInt8]) -> [UInt8]? {
        var digits: [UInt8] = []
        digits.reserveCapacity(text.count)
        var body = text[...]
        while let first = body.first, first == 0x20 || (0x09...0x0D).contains(first) { body = body.dropFirst() }
        if body.starts(with: [0x30, 0x78]) || body.starts(with: [0x30, 0x58]) { body = body.dropFirst(2) }
        for c in body {
            switch c {
            case 0x30...0x39: digits.append(c - 0x30)
            case 0x61...0x66: digits.append(c - 0x61 + 10)
            case 0x41...0x46: digits.append(c - 0x41 + 10)
            case 0x20, 0x09...0x0D: continue
            default: return nil
            }
        }
        guard !digits.isEmpty, digits.count % 2 == 0 else { return nil }
        return stride(from: 0, to: digits.count, by: 2).map { digits[$0] << 4 | digits[$0 + 1] }
    }
}

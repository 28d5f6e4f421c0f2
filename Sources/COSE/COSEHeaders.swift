import CBOR

/// COSE header labels used in ISO 18013-5 (RFC 9052, RFC 9360).
public enum COSEHeaderLabel {
    public static let algorithm: CBOR = 1
    public static let keyIdentifier: CBOR = 4
    /// x5chain: one DER certificate as a bstr, or an array of them, leaf first.
    public static let x5chain: CBOR = 33
}

/// A protected header: the serialized map as it travelled, and its decoded entries.
public struct COSEProtectedHeader: Sendable, Hashable {
    /// The content of the protected bstr (empty when there are no protected headers).
    public let bytes: [UInt8]
    public let map: CBOR

    public init(bytes: [UInt8]) throws(COSEError) {
        self.bytes = bytes
        if bytes.isEmpty {
            map = .map([])
        } else {
            do {
                map = try CBOR.decode(bytes)
            } catch {
                throw .invalidProtectedHeader(error)
            }
            guard case .map = map else { throw .malformed("protected header is not a map") }
        }
    }

    /// Builds one from our own entries.
    public init(_ entries: [CBORMapEntry]) {
        map = .map(entries)
        bytes = entries.isEmpty ? [] : map.encoded()
    }

    public var algorithm: Int? { map[COSEHeaderLabel.algorithm]?.intValue }
}

extension Array where Element == CBORMapEntry {
    /// The certificates of an x5chain header (leaf first), DER.
    public var x5chain: [[UInt8]]? {
        guard let value = first(where: { $0.key == COSEHeaderLabel.x5chain })?.value else { return nil }
        switch value {
        case .bytes(let der): return [der]
        case .array(let items):
            let ders = items.compactMap(\.bytesValue)
            return ders.count == items.count && !ders.isEmpty ? ders : nil
        default: return nil
        }
    }

    /// An x5chain header entry for these certificates: a bstr for one, an array for several.
    public static func x5chain(_ ders: [[UInt8]]) -> [CBORMapEntry] {
        guard !ders.isEmpty else { return [] }
        let value: CBOR = ders.count == 1 ? .bytes(ders[0]) : .array(ders.map { .bytes($0) })
        return [CBORMapEntry(COSEHeaderLabel.x5chain, value)]
    }
}

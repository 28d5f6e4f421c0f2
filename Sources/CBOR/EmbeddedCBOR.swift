/// A tag-24 item, `#6.24(bstr .cbor X)`: the bytes that travelled and their decoded value.
///
/// Anything hashed, signed or MACed over such an item uses ``bytes`` or ``taggedEncoding``,
/// never a re-encoding of ``value`` (ISO 18013-5 requires the exact bytes; re-encoding breaks
/// interop).
public struct EmbeddedCBOR: Sendable, Hashable {
    /// The content of the byte string: one complete CBOR item.
    public let bytes: [UInt8]
    /// `bytes`, decoded.
    public let value: CBOR
    /// The whole tag-24 item exactly as received, kept only when its tag or byte-string
    /// headers are not the preferred ones (nil otherwise: the preferred encoding is then what
    /// was received). Part of equality: items that travelled as different bytes differ.
    private let receivedEncoding: [UInt8]?

    /// Wraps a value we produce: it is encoded once, and those bytes are kept.
    public init(_ value: CBOR) {
        self.value = value
        self.bytes = value.encoded()
        self.receivedEncoding = nil
    }

    /// Wraps received bytes, decoding them.
    public init(bytes: [UInt8], limits: CBORDecodingLimits = .default) throws(CBORError) {
        self.value = try CBOR.decode(bytes, limits: limits)
        self.bytes = bytes
        self.receivedEncoding = nil
    }

    /// A decoded tag-24 item: `encoding` is the whole item (tag and byte-string headers
    /// included) as it was received, read from the input only when it is not the preferred
    /// form (a 60 kB portrait is not copied again just to be dropped).
    init(uncheckedBytes bytes: [UInt8], value: CBOR, encoding: UnsafeBufferPointer<UInt8>.SubSequence) {
        self.bytes = bytes
        self.value = value
        self.receivedEncoding = Self.isPreferred(encoding, count: bytes.count) ? nil : Array(encoding)
    }

    /// Whether `encoding` is `d8 18`, the preferred byte-string header for `count` bytes and
    /// nothing after the content.
    private static func isPreferred(_ encoding: some Collection<UInt8>, count: Int) -> Bool {
        let preferredCount = 2 + CBOR.headCount(UInt64(count)) + count
        guard encoding.count == preferredCount else { return false }
        var encoder = CBOREncoder()
        encoder.encodeEmbeddedHeader(count)
        return encoding.starts(with: encoder.output)
    }

    /// The complete tag-24 item as it is hashed where the standard hashes a `...Bytes`
    /// structure: exactly as received for a decoded item, the preferred encoding (which is
    /// what is sent) for one built here.
    public var taggedEncoding: [UInt8] { receivedEncoding ?? CBOR.embedded(self).encoded() }

    /// Size of ``taggedEncoding``.
    var taggedCount: Int { receivedEncoding?.count ?? 2 + CBOR.headCount(UInt64(bytes.count)) + bytes.count }

    /// Appends the item as it travels: as received, or in the preferred encoding.
    func encode(into encoder: inout CBOREncoder) {
        if let receivedEncoding {
            encoder.append(receivedEncoding)
        } else {
            encoder.encodeEmbeddedHeader(bytes.count)
            encoder.append(bytes)
        }
    }
}

/// A tag-24 item, `#6.24(bstr .cbor X)`: the bytes that travelled and their decoded value.
///
/// Anything hashed, signed or MACed over such an item uses ``bytes``, never a re-encoding of
/// ``value`` (ISO 18013-5 requires the exact bytes; re-encoding breaks interop).
public struct EmbeddedCBOR: Sendable, Hashable {
    /// The content of the byte string: one complete CBOR item.
    public let bytes: [UInt8]
    /// `bytes`, decoded.
    public let value: CBOR

    /// Wraps a value we produce: it is encoded once, and those bytes are kept.
    public init(_ value: CBOR) {
        self.value = value
        self.bytes = value.encoded()
    }

    /// Wraps received bytes, decoding them.
    public init(bytes: [UInt8], limits: CBORDecodingLimits = .default) throws(CBORError) {
        self.value = try CBOR.decode(bytes, limits: limits)
        self.bytes = bytes
    }

    init(uncheckedBytes bytes: [UInt8], value: CBOR) {
        self.bytes = bytes
        self.value = value
    }

    /// The complete tag-24 item (`d8 18` + byte string header + bytes), as it is hashed where
    /// the standard hashes a `...Bytes` structure.
    public var taggedEncoding: [UInt8] { CBOR.embedded(self).encoded() }
}

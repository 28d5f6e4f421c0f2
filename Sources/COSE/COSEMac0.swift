import CBOR
import MdocCrypto

/// COSE_Mac0 (RFC 9052 section 6.2) with HMAC 256/256 (alg 5), as ISO 18013-5 deviceMac uses.
public struct COSEMac0: Sendable, Hashable {
    /// COSE algorithm identifier of HMAC-SHA256 with a 256-bit tag.
    public static let hmac256: Int = 5

    public let protected: COSEProtectedHeader
    public let unprotected: [CBORMapEntry]
    public let payload: [UInt8]?
    public let tag: [UInt8]

    public init(cbor: CBOR) throws(COSEError) {
        let parts = try COSEMessageParts(cbor, tag: 17, name: "COSE_Mac0", lastName: "tag")
        protected = parts.protected
        unprotected = parts.unprotected
        payload = parts.payload
        tag = parts.last
    }

    /// MACs `payload` with HMAC-SHA256 under `key` (for ISO 18013-5: EMacKey).
    public static func authenticate(payload: [UInt8], detached: Bool, key: SecretBytes) -> COSEMac0 {
        let protected = COSEProtectedHeader([CBORMapEntry(COSEHeaderLabel.algorithm, .int(hmac256))])
        let tag = HMAC.sha256(key: key, data: macStructure(protected: protected.bytes, payload: payload))
        return COSEMac0(protected: protected, unprotected: [], payload: detached ? nil : payload, tag: tag)
    }

    private init(protected: COSEProtectedHeader, unprotected: [CBORMapEntry], payload: [UInt8]?, tag: [UInt8]) {
        self.protected = protected
        self.unprotected = unprotected
        self.payload = payload
        self.tag = tag
    }

    /// `MAC_structure = ["MAC0", protected, external_aad = h'', payload]`.
    public static func macStructure(protected: [UInt8], payload: [UInt8]) -> [UInt8] {
        CBOR.array(["MAC0", .bytes(protected), .bytes([]), .bytes(payload)]).encoded()
    }

    /// Recomputes the tag and compares in constant time.
    public func isValidTag(key: SecretBytes, detachedPayload: [UInt8]? = nil) throws(COSEError) -> Bool {
        guard protected.algorithm == Self.hmac256 else { throw .unsupportedAlgorithm(protected.algorithm) }
        guard let content = payload ?? detachedPayload else {
            throw .malformed("payload is detached and none was supplied")
        }
        let expected = HMAC.sha256(key: key, data: Self.macStructure(protected: protected.bytes, payload: content))
        guard expected.count == tag.count else { return false }
        var difference: UInt8 = 0
        for i in 0..<tag.count { difference |= expected[i] ^ tag[i] }
        return difference == 0
    }

    public var cbor: CBOR {
        .array([.bytes(protected.bytes), .map(unprotected), payload.map { .bytes($0) } ?? .null, .bytes(tag)])
    }
}

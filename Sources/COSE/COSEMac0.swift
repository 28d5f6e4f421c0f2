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

    /// Checks a detached tag (ISO 18013-5 deviceMac) over `expectedPayload`, the
    /// DeviceAuthenticationBytes the verifier computed for this session: recomputes the tag
    /// and compares in constant time. A structure that arrived with a payload attached is
    /// refused, whatever that payload is.
    ///
    /// - Throws: ``COSEError/attachedPayload`` when a payload travelled,
    ///   ``COSEError/algorithmNotProtected`` without `alg` in the protected header,
    ///   ``COSEError/unsupportedAlgorithm(_:)`` for an algorithm other than HMAC 256/256.
    ///   Returns false when the tag is wrong.
    public func isValidDetachedTag(over expectedPayload: [UInt8], key: SecretBytes) throws(COSEError) -> Bool {
        guard payload == nil else { throw .attachedPayload }
        guard let algorithm = protected.algorithm else { throw .algorithmNotProtected }
        guard algorithm == Self.hmac256 else { throw .unsupportedAlgorithm(algorithm) }
        let expected = HMAC.sha256(
            key: key, data: Self.macStructure(protected: protected.bytes, payload: expectedPayload))
        guard expected.count == tag.count else { return false }
        var difference: UInt8 = 0
        for i in 0..<tag.count { difference |= expected[i] ^ tag[i] }
        return difference == 0
    }

    public var cbor: CBOR {
        .array([.bytes(protected.bytes), .map(unprotected), payload.map { .bytes($0) } ?? .null, .bytes(tag)])
    }
}

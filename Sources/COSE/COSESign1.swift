import CBOR
import MdocCrypto

/// COSE_Sign1 (RFC 9052 section 4.2): `[protected, unprotected, payload / nil, signature]`.
public struct COSESign1: Sendable, Hashable {
    public let protected: COSEProtectedHeader
    public let unprotected: [CBORMapEntry]
    /// nil when the payload is detached (ISO 18013-5 readerAuth and deviceSignature).
    public let payload: [UInt8]?
    public let signature: [UInt8]

    /// Reads an untagged or tag-18 COSE_Sign1.
    public init(cbor: CBOR) throws(COSEError) {
        let parts = try COSEMessageParts(cbor, tag: 18, name: "COSE_Sign1", lastName: "signature")
        protected = parts.protected
        unprotected = parts.unprotected
        payload = parts.payload
        signature = parts.last
    }

    init(protected: COSEProtectedHeader, unprotected: [CBORMapEntry], payload: [UInt8]?, signature: [UInt8]) {
        self.protected = protected
        self.unprotected = unprotected
        self.payload = payload
        self.signature = signature
    }

    /// Signs `payload`. With `detached` the payload is left out of the structure (the
    /// verifier rebuilds it), as ISO 18013-5 does for readerAuth and deviceSignature.
    public static func sign(
        payload: [UInt8], detached: Bool, key: PrivateKey, algorithm: SignatureAlgorithm,
        unprotected: [CBORMapEntry] = []
    ) throws(COSEError) -> COSESign1 {
        let protected = COSEProtectedHeader([CBORMapEntry(COSEHeaderLabel.algorithm, .int(algorithm.rawValue))])
        let toBeSigned = sigStructure(protected: protected.bytes, payload: payload)
        let signature: [UInt8]
        do {
            signature = try key.sign(toBeSigned, algorithm: algorithm)
        } catch {
            throw .crypto(error)
        }
        return COSESign1(
            protected: protected, unprotected: unprotected, payload: detached ? nil : payload, signature: signature)
    }

    /// `Sig_structure = ["Signature1", protected, external_aad = h'', payload]`.
    public static func sigStructure(protected: [UInt8], payload: [UInt8]) -> [UInt8] {
        CBOR.array(["Signature1", .bytes(protected), .bytes([]), .bytes(payload)]).encoded()
    }

    /// The signature algorithm named in the protected header (never the unprotected one).
    public var algorithm: SignatureAlgorithm? { protected.algorithm.flatMap(SignatureAlgorithm.init(rawValue:)) }

    /// The x5chain certificates (DER, leaf first), from the unprotected or protected header.
    public var x5chain: [[UInt8]]? { unprotected.x5chain ?? protected.map.mapEntries?.x5chain }

    /// Checks a detached signature (ISO 18013-5 readerAuth, deviceSignature) over
    /// `expectedPayload`: the bytes the verifier computed itself for this session
    /// (ReaderAuthenticationBytes, DeviceAuthenticationBytes). A structure that arrived with
    /// a payload attached is refused, whatever that payload is.
    ///
    /// - Throws: ``COSEError/attachedPayload`` when a payload travelled,
    ///   ``COSEError/algorithmNotProtected`` without `alg` in the protected header,
    ///   ``COSEError/unsupportedAlgorithm(_:)`` for an algorithm we do not know or one that
    ///   does not fit the key. Returns false when the signature is wrong.
    public func isValidDetachedSignature(over expectedPayload: [UInt8], key: PublicKey) throws(COSEError) -> Bool {
        guard payload == nil else { throw .attachedPayload }
        return try isValid(over: expectedPayload, key: key)
    }

    /// Checks a signature over the payload it carries (issuerAuth over
    /// MobileSecurityObjectBytes, as they travelled). Use it only where the standard attaches
    /// the payload; detached structures take ``isValidDetachedSignature(over:key:)``.
    ///
    /// - Throws: ``COSEError/detachedPayload`` when no payload travelled, and the errors of
    ///   ``isValidDetachedSignature(over:key:)`` but the first.
    public func isValidAttachedSignature(key: PublicKey) throws(COSEError) -> Bool {
        guard let payload else { throw .detachedPayload }
        return try isValid(over: payload, key: key)
    }

    private func isValid(over content: [UInt8], key: PublicKey) throws(COSEError) -> Bool {
        let algorithm = try protectedAlgorithm()
        guard Self.algorithm(algorithm, fits: key.curve) else {
            throw .unsupportedAlgorithm(algorithm.rawValue)
        }
        let toBeSigned = Self.sigStructure(protected: protected.bytes, payload: content)
        return key.isValidSignature(signature, for: toBeSigned, algorithm: algorithm)
    }

    /// The algorithm of the protected header, or why there is none to use.
    private func protectedAlgorithm() throws(COSEError) -> SignatureAlgorithm {
        guard let identifier = protected.algorithm else { throw .algorithmNotProtected }
        guard let algorithm = SignatureAlgorithm(rawValue: identifier) else {
            throw .unsupportedAlgorithm(identifier)
        }
        return algorithm
    }

    static func algorithm(_ algorithm: SignatureAlgorithm, fits curve: Curve) -> Bool {
        switch algorithm {
        case .edDSA: return curve == .ed25519 || curve == .ed448
        default: return !curve.isOKP
        }
    }

    /// The untagged array, as ISO 18013-5 carries it.
    public var cbor: CBOR {
        .array([
            .bytes(protected.bytes), .map(unprotected), payload.map { .bytes($0) } ?? .null, .bytes(signature),
        ])
    }
}

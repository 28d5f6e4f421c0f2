internal import COpenSSL

/// A public key on one of the supported ``Curve``s: EC2 (NIST, brainpool) or OKP (X25519, X448,
/// Ed25519, Ed448). Owns an OpenSSL key object, freed on deinit.
///
/// Sendable: the object is immutable after initialization, and OpenSSL 3 key objects may be used
/// read-only from several threads at once.
public final class PublicKey: @unchecked Sendable, Equatable, CustomStringConvertible {
    /// The key's curve.
    public let curve: Curve
    /// EC2: the fixed-size (``Curve/coordinateSize``) big-endian x coordinate. OKP: the raw
    /// public key.
    public let x: [UInt8]
    /// EC2: the fixed-size big-endian y coordinate. OKP: `nil`.
    public let y: [UInt8]?
    /// The DER SubjectPublicKeyInfo (EC points uncompressed).
    public let subjectPublicKeyInfoDER: [UInt8]
    /// The OpenSSL key (public part only).
    let pkey: OpaquePointer

    /// Takes ownership of `pkey`, which is freed even if this throws.
    init(adopting pkey: OpaquePointer) throws(CryptoError) {
        do throws(CryptoError) {
            let curve = try Curve.of(pkey)
            if curve.isOKP {
                var raw = [UInt8](repeating: 0, count: curve.coordinateSize)
                var length = raw.count
                guard EVP_PKEY_get_raw_public_key(pkey, &raw, &length) == 1, length == raw.count else {
                    throw CryptoError.fromOpenSSL("EVP_PKEY_get_raw_public_key")
                }
                self.x = raw
                self.y = nil
            } else {
                // Keys read from a compressed encoding would otherwise re-encode compressed.
                guard EVP_PKEY_set_utf8_string_param(pkey, "point-format", "uncompressed") == 1 else {
                    throw CryptoError.fromOpenSSL("EVP_PKEY_set_utf8_string_param(point-format)")
                }
                self.x = try EVPKeyCoding.unsignedParameter("qx", of: pkey, size: curve.coordinateSize)
                self.y = try EVPKeyCoding.unsignedParameter("qy", of: pkey, size: curve.coordinateSize)
            }
            self.subjectPublicKeyInfoDER = try EVPKeyCoding.subjectPublicKeyInfo(pkey)
            self.curve = curve
            self.pkey = pkey
        } catch {
            EVP_PKEY_free(pkey)
            throw error
        }
    }

    deinit {
        EVP_PKEY_free(pkey)
    }

    /// An EC2 public key from its affine coordinates.
    ///
    /// - Parameters:
    ///   - x: big-endian, exactly ``Curve/coordinateSize`` bytes.
    ///   - y: big-endian, exactly ``Curve/coordinateSize`` bytes.
    /// - Throws: ``CryptoError/unsupportedCurve(_:)`` for an OKP curve,
    ///   ``CryptoError/invalidLength(_:)`` for wrong-length coordinates,
    ///   ``CryptoError/invalidKey(_:)`` if the point is not on the curve.
    public convenience init(curve: Curve, x: [UInt8], y: [UInt8]) throws(CryptoError) {
        guard let group = curve.opensslGroupName else {
            throw .unsupportedCurve("\(curve.rawValue) is an OKP curve; its keys have no y coordinate")
        }
        let size = curve.coordinateSize
        guard x.count == size, y.count == size else {
            throw .invalidLength(
                "\(curve.rawValue) coordinates must be \(size) bytes each, not \(x.count) and \(y.count)")
        }
        let point = [0x04] + x + y
        let imported = point.withUnsafeBytes { encoded in
            EVPKeyCoding.fromData(keyType: "EC", selection: mdoc_EVP_PKEY_PUBLIC_KEY()) { params in
                params.addUTF8("group", group)
                params.addOctets("pub", encoded)
            }
        }
        guard let pkey = imported else { throw .invalidKey("point not on curve \(curve.rawValue)") }
        guard EVPKeyCoding.publicKeyIsValid(pkey) else {
            EVP_PKEY_free(pkey)
            throw .invalidKey("point not on curve \(curve.rawValue) or not in its prime-order subgroup")
        }
        try self.init(adopting: pkey)
    }

    /// An OKP public key (X25519, X448, Ed25519, Ed448) from its raw encoding.
    ///
    /// - Throws: ``CryptoError/unsupportedCurve(_:)`` for an EC2 curve,
    ///   ``CryptoError/invalidLength(_:)`` unless `raw` has ``Curve/coordinateSize`` bytes.
    public convenience init(curve: Curve, raw: [UInt8]) throws(CryptoError) {
        guard curve.isOKP else {
            throw .unsupportedCurve("\(curve.rawValue) is an EC2 curve; give x and y coordinates")
        }
        guard raw.count == curve.coordinateSize else {
            throw .invalidLength("\(curve.rawValue) public keys are \(curve.coordinateSize) bytes, not \(raw.count)")
        }
        guard let pkey = EVP_PKEY_new_raw_public_key_ex(nil, curve.opensslKeyType, nil, raw, raw.count) else {
            throw .invalidKey("OpenSSL rejected the \(curve.rawValue) public key (\(drainOpenSSLErrors()))")
        }
        try self.init(adopting: pkey)
    }

    /// A public key from a DER SubjectPublicKeyInfo (RFC 5280), curve detected.
    ///
    /// - Throws: ``CryptoError/invalidKey(_:)`` if the DER does not parse or has trailing bytes,
    ///   ``CryptoError/unsupportedCurve(_:)`` for other key types or curves.
    public convenience init(subjectPublicKeyInfoDER der: [UInt8]) throws(CryptoError) {
        try self.init(adopting: EVPKeyCoding.parseSubjectPublicKeyInfo(der))
    }

    /// A public key from a PEM "PUBLIC KEY" block, curve detected.
    public convenience init(pem: String) throws(CryptoError) {
        let parsed = MemoryBIO.reading(Array(pem.utf8)) { bio in PEM_read_bio_PUBKEY(bio, nil, nil, nil) }
        guard let pkey = parsed ?? nil else {
            throw .invalidKey("no PEM public key found (\(drainOpenSSLErrors()))")
        }
        try self.init(adopting: pkey)
    }

    /// The public key in PEM ("BEGIN PUBLIC KEY").
    public var pem: String {
        PEMEncoding.encode(subjectPublicKeyInfoDER, label: "PUBLIC KEY")
    }

    /// Same curve and same point.
    public static func == (a: PublicKey, b: PublicKey) -> Bool {
        a.curve == b.curve && a.x == b.x && a.y == b.y
    }

    /// The curve only; the coordinates are not secret but make long lines.
    public var description: String { "PublicKey(\(curve.rawValue))" }
}

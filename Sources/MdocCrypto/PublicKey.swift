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
    /// The OpenSSL key (public part only).
    let pkey: OpaquePointer

    /// Takes ownership of `pkey`, whose coordinates the caller already knows (they are what
    /// the key was built from): nothing is read back or re-encoded.
    private init(adopting pkey: OpaquePointer, curve: Curve, x: [UInt8], y: [UInt8]?) {
        self.curve = curve
        self.x = x
        self.y = y
        self.pkey = pkey
    }

    /// The curve and coordinates of a key OpenSSL decoded (a SubjectPublicKeyInfo, PEM, a
    /// certificate's key, a key pair), read without changing or taking the key.
    static func coordinates(of pkey: OpaquePointer, curve known: Curve? = nil) throws(CryptoError)
        -> (Curve, x: [UInt8], y: [UInt8]?)
    {
        let curve: Curve
        if let known { curve = known } else { curve = try Curve.of(pkey) }
        if curve.isOKP {
            var raw = [UInt8](repeating: 0, count: curve.coordinateSize)
            var length = raw.count
            guard EVP_PKEY_get_raw_public_key(pkey, &raw, &length) == 1, length == raw.count else {
                throw .fromOpenSSL("EVP_PKEY_get_raw_public_key")
            }
            return (curve, raw, nil)
        }
        let size = curve.coordinateSize
        var point = [UInt8](repeating: 0, count: 1 + 2 * size)
        var length = 0
        if EVP_PKEY_get_octet_string_param(pkey, "encoded-pub-key", &point, point.count, &length) == 1,
            length == point.count, point[0] == 0x04
        {
            return (curve, Array(point[1...size]), Array(point[(size + 1)...]))
        }
        // A compressed encoding (or a provider that does not give it): the coordinates as numbers.
        clearOpenSSLErrors()
        return (
            curve, try EVPKeyCoding.unsignedParameter("qx", of: pkey, size: size),
            try EVPKeyCoding.unsignedParameter("qy", of: pkey, size: size)
        )
    }

    /// A key of our own, in OpenSSL's default provider, with the coordinates of a key OpenSSL
    /// decoded or holds elsewhere (`pkey` is only read): no encoder or decoder round trip, and
    /// EC points kept uncompressed whatever form they came in.
    convenience init(copying pkey: OpaquePointer, curve known: Curve? = nil) throws(CryptoError) {
        let (curve, x, y) = try Self.coordinates(of: pkey, curve: known)
        if let y {
            try self.init(curve: curve, uncompressedPoint: [0x04] + x + y)
        } else {
            try self.init(curve: curve, raw: x)
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
        guard curve.opensslGroupName != nil else {
            throw .unsupportedCurve("\(curve.rawValue) is an OKP curve; its keys have no y coordinate")
        }
        let size = curve.coordinateSize
        guard x.count == size, y.count == size else {
            throw .invalidLength(
                "\(curve.rawValue) coordinates must be \(size) bytes each, not \(x.count) and \(y.count)")
        }
        try self.init(curve: curve, uncompressedPoint: [0x04] + x + y)
    }

    /// A key as COSE_Key and JWK carry it (`crv`, `x`, `y`): EC2 with a `y` coordinate, OKP
    /// (`x` the raw key, ``init(curve:raw:)``) without one.
    public convenience init(curve: Curve, x: [UInt8], y: [UInt8]?) throws(CryptoError) {
        if let y {
            try self.init(curve: curve, x: x, y: y)
        } else {
            try self.init(curve: curve, raw: x)
        }
    }

    /// An EC2 key from `0x04 || x || y`, made from the curve's ``CurveTemplate``. The point
    /// must be on the curve (OpenSSL checks it as it sets it): on the supported curves, all of
    /// cofactor 1, that also puts it in the prime-order subgroup, so OpenSSL's full check (a
    /// multiplication by the order) would add nothing.
    convenience init(curve: Curve, uncompressedPoint point: [UInt8]) throws(CryptoError) {
        guard !curve.isOKP else {
            throw .unsupportedCurve("\(curve.rawValue) is an OKP curve; its keys have no y coordinate")
        }
        guard let pkey = try CurveTemplate.of(curve).ecPublicKey(point: point) else {
            throw .invalidKey("point not on curve \(curve.rawValue)")
        }
        let size = curve.coordinateSize
        self.init(adopting: pkey, curve: curve, x: Array(point[1...size]), y: Array(point[(size + 1)...]))
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
        self.init(adopting: pkey, curve: curve, x: raw, y: nil)
    }

    /// A public key from a DER SubjectPublicKeyInfo (RFC 5280), curve detected.
    ///
    /// - Throws: ``CryptoError/invalidKey(_:)`` if the DER does not parse or has trailing bytes,
    ///   ``CryptoError/unsupportedCurve(_:)`` for other key types or curves.
    public convenience init(subjectPublicKeyInfoDER der: [UInt8]) throws(CryptoError) {
        // The named-curve form every key we meet uses: split at the curve's known prefix.
        if let (curve, key) = CurveTemplate.split(subjectPublicKeyInfo: der) {
            if curve.isOKP {
                try self.init(curve: curve, raw: Array(key))
            } else {
                guard key.first == 0x04 else { throw .invalidKey("the \(curve.rawValue) point is not uncompressed") }
                try self.init(curve: curve, uncompressedPoint: Array(key))
            }
            return
        }
        let decoded = try EVPKeyCoding.parseSubjectPublicKeyInfo(der)
        defer { EVP_PKEY_free(decoded) }
        try self.init(copying: decoded)
    }

    /// A public key from a PEM "PUBLIC KEY" block, curve detected.
    public convenience init(pem: String) throws(CryptoError) {
        let parsed = MemoryBIO.reading(Array(pem.utf8)) { bio in PEM_read_bio_PUBKEY(bio, nil, nil, nil) }
        guard let pkey = parsed ?? nil else {
            throw .invalidKey("no PEM public key found (\(drainOpenSSLErrors()))")
        }
        defer { EVP_PKEY_free(pkey) }
        try self.init(copying: pkey)
    }

    /// The DER SubjectPublicKeyInfo (EC points uncompressed), encoded when asked for: the hot
    /// paths (ECDH, signatures, COSE_Key) never need it.
    public var subjectPublicKeyInfoDER: [UInt8] {
        // The template exists: this key was made on its curve.
        guard let template = try? CurveTemplate.of(curve) else {
            preconditionFailure("no \(curve.rawValue) template for an existing \(curve.rawValue) key")
        }
        return template.subjectPublicKeyInfoPrefix + (y.map { [0x04] + x + $0 } ?? x)
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

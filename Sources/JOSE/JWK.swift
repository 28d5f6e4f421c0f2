import Base64
import MdocCrypto

/// A JSON Web Key (RFC 7517) for the curves JOSE defines: EC P-256, P-384, P-521 (RFC 7518)
/// and OKP Ed25519, Ed448, X25519, X448 (RFC 8037). Public always; the private part `d` only
/// when one was given (decryption, test signers).
///
/// `description` names the key type, curve and `kid`, never coordinates or the private part.
public struct JWK: Sendable, CustomStringConvertible {
    /// The `kty` member.
    public enum KeyType: String, Sendable, Hashable {
        case ec = "EC"
        case okp = "OKP"
    }

    public let keyType: KeyType
    /// The `crv` member.
    public let curve: Curve
    /// EC: the x coordinate, big-endian, exactly ``Curve/coordinateSize`` bytes. OKP: the
    /// public key.
    public let x: [UInt8]
    /// EC: the y coordinate. OKP: nil.
    public let y: [UInt8]?
    /// The `kid` member.
    public let keyID: String?
    /// The `use` member ("sig", "enc").
    public let use: String?
    /// The `alg` member ("ES256", "ECDH-ES", ...).
    public let algorithm: String?
    /// The private part `d`, if present.
    let privatePart: SecretBytes?

    /// The curves a JWK may name, by their JOSE `crv` value.
    static let curves: [String: (KeyType, Curve)] = [
        "P-256": (.ec, .p256), "P-384": (.ec, .p384), "P-521": (.ec, .p521),
        "Ed25519": (.okp, .ed25519), "Ed448": (.okp, .ed448), "X25519": (.okp, .x25519), "X448": (.okp, .x448),
    ]

    /// Reads a JWK from its JSON object. Members other than kty, crv, x, y, d, kid, use and
    /// alg are ignored.
    ///
    /// - Throws: ``JOSEError/malformed(_:)`` for a missing or mistyped member,
    ///   ``JOSEError/unsupportedAlgorithm(_:)`` for another `kty` or `crv`,
    ///   ``JOSEError/invalidKey(_:)`` for a point not on the curve, a wrong length, or a `d`
    ///   that does not match the public key.
    public init(json: JSONValue) throws(JOSEError) {
        guard let members = json.objectValue else { throw .malformed("JWK is not a JSON object") }
        func text(_ name: String) throws(JOSEError) -> String? {
            guard let value = members[name] else { return nil }
            guard let s = value.stringValue else { throw .malformed("JWK member \(name) is not a string") }
            return s
        }
        func bytes(_ name: String) throws(JOSEError) -> [UInt8]? {
            guard let s = try text(name) else { return nil }
            guard let decoded = Base64URL.decode(s) else { throw .malformed("JWK member \(name) is not base64url") }
            return decoded
        }
        guard let kty = try text("kty") else { throw .malformed("JWK has no kty") }
        guard let keyType = KeyType(rawValue: kty) else { throw .unsupportedAlgorithm("JWK kty \(kty)") }
        guard let crv = try text("crv") else { throw .malformed("JWK has no crv") }
        guard let (curveKeyType, curve) = Self.curves[crv], curveKeyType == keyType else {
            throw .unsupportedAlgorithm("JWK crv \(crv) with kty \(kty)")
        }
        guard let x = try bytes("x") else { throw .malformed("JWK has no x") }
        let y = try bytes("y")
        if keyType == .ec, y == nil { throw .malformed("EC JWK has no y") }
        if keyType == .okp, y != nil { throw .malformed("OKP JWK has a y") }
        let d = try bytes("d")
        try self.init(
            keyType: keyType, curve: curve, x: x, y: y, d: d.map(SecretBytes.init), keyID: try text("kid"),
            use: try text("use"), algorithm: try text("alg"))
    }

    /// Reads a JWK from JSON text.
    public init(jsonText: String) throws(JOSEError) {
        try self.init(json: JSONValue(parsing: jsonText))
    }

    /// Checks the key material: the public key must be valid on its curve, and `d` must
    /// belong to it.
    private init(
        keyType: KeyType, curve: Curve, x: [UInt8], y: [UInt8]?, d: SecretBytes?, keyID: String?, use: String?,
        algorithm: String?
    ) throws(JOSEError) {
        self.keyType = keyType
        self.curve = curve
        self.x = x
        self.y = y
        self.privatePart = d
        self.keyID = keyID
        self.use = use
        self.algorithm = algorithm
        let publicKey = try self.publicKey()
        if d != nil {
            guard try privateKey().publicKey == publicKey else {
                throw .invalidKey("JWK d does not match its public key")
            }
        }
    }

    /// The public JWK of `publicKey`.
    ///
    /// - Throws: ``JOSEError/unsupportedAlgorithm(_:)`` for a curve JOSE has no name for
    ///   (brainpool).
    public init(publicKey: PublicKey, keyID: String? = nil, use: String? = nil, algorithm: String? = nil)
        throws(JOSEError)
    {
        guard let (keyType, _) = Self.curves[publicKey.curve.rawValue] else {
            throw .unsupportedAlgorithm("\(publicKey.curve.rawValue) keys have no JWK form")
        }
        self.keyType = keyType
        self.curve = publicKey.curve
        self.x = publicKey.x
        self.y = publicKey.y
        self.privatePart = nil
        self.keyID = keyID
        self.use = use
        self.algorithm = algorithm
    }

    /// The JWK of `privateKey`, with its private part (for tests and a verifier's decryption
    /// key; a holder never exports its keys).
    public init(privateKey: PrivateKey, keyID: String? = nil, use: String? = nil, algorithm: String? = nil)
        throws(JOSEError)
    {
        let raw: SecretBytes
        do {
            raw = try privateKey.rawPrivateKey()
        } catch {
            throw .key(error)
        }
        try self.init(
            keyType: privateKey.curve.isOKP ? .okp : .ec, curve: privateKey.curve, x: privateKey.publicKey.x,
            y: privateKey.publicKey.y, d: raw, keyID: keyID, use: use, algorithm: algorithm)
    }

    /// Whether the private part `d` is present.
    public var hasPrivateKey: Bool { privatePart != nil }

    /// The same key without its private part.
    public var publicJWK: JWK {
        JWK(checkedPublic: self)
    }

    /// A copy of `other`'s public members (already checked when `other` was made).
    private init(checkedPublic other: JWK) {
        keyType = other.keyType
        curve = other.curve
        x = other.x
        y = other.y
        privatePart = nil
        keyID = other.keyID
        use = other.use
        algorithm = other.algorithm
    }

    /// The public key.
    public func publicKey() throws(JOSEError) -> PublicKey {
        do {
            return try PublicKey(curve: curve, x: x, y: y)
        } catch {
            throw .key(error)
        }
    }

    /// The private key.
    ///
    /// - Throws: ``JOSEError/invalidKey(_:)`` when the JWK has no `d` or `d` is unusable.
    public func privateKey() throws(JOSEError) -> PrivateKey {
        guard let privatePart else { throw .invalidKey("the JWK has no private part") }
        do {
            return try PrivateKey(curve: curve, rawPrivateKey: privatePart.bytes)
        } catch {
            throw .key(error)
        }
    }

    /// The JSON object: kty, crv, x, (y), and kid, use, alg when set; `d` only if asked for.
    public func json(includingPrivateKey: Bool = false) -> JSONValue {
        var members: [String: JSONValue] = [
            "kty": .string(keyType.rawValue), "crv": .string(curve.rawValue), "x": .string(Base64URL.encode(x)),
        ]
        if let y { members["y"] = .string(Base64URL.encode(y)) }
        if let keyID { members["kid"] = .string(keyID) }
        if let use { members["use"] = .string(use) }
        if let algorithm { members["alg"] = .string(algorithm) }
        if includingPrivateKey, let privatePart { members["d"] = .string(Base64URL.encode(privatePart.bytes)) }
        return .object(members)
    }

    /// The RFC 7638 thumbprint input: the required members only (EC: crv, kty, x, y; OKP:
    /// crv, kty, x), in lexicographic order, without whitespace.
    public var thumbprintInput: String {
        var members: [String: JSONValue] = [
            "kty": .string(keyType.rawValue), "crv": .string(curve.rawValue), "x": .string(Base64URL.encode(x)),
        ]
        if let y { members["y"] = .string(Base64URL.encode(y)) }
        return JSONValue.object(members).serializedString
    }

    /// The RFC 7638 SHA-256 thumbprint (32 bytes), as the OpenID4VP handover carries it.
    public var thumbprint: [UInt8] {
        Digest.sha256(Array(thumbprintInput.utf8))
    }

    /// Key type, curve and key ID only.
    public var description: String {
        "JWK(\(keyType.rawValue) \(curve.rawValue)\(keyID.map { ", kid \($0)" } ?? "")\(hasPrivateKey ? ", private" : ""))"
    }
}

extension JWK: Equatable {
    /// Same public key and the same kid, use and alg (the private part is not compared).
    public static func == (a: JWK, b: JWK) -> Bool {
        a.keyType == b.keyType && a.curve == b.curve && a.x == b.x && a.y == b.y && a.keyID == b.keyID
            && a.use == b.use && a.algorithm == b.algorithm
    }
}

import Base64
import FoundationEssentials
import MdocCrypto

/// JWS signature algorithms (RFC 7518 section 3.4, RFC 8037), each tied to one curve family.
public enum JWSAlgorithm: String, Sendable, CaseIterable, Hashable {
    /// ECDSA P-256 with SHA-256.
    case es256 = "ES256"
    /// ECDSA P-384 with SHA-384.
    case es384 = "ES384"
    /// ECDSA P-521 with SHA-512.
    case es512 = "ES512"
    /// EdDSA with Ed25519 or Ed448.
    case edDSA = "EdDSA"

    /// The signature primitive.
    public var signatureAlgorithm: SignatureAlgorithm {
        switch self {
        case .es256: return .es256
        case .es384: return .es384
        case .es512: return .es512
        case .edDSA: return .edDSA
        }
    }

    /// Whether a key on `curve` makes this kind of signature. Unlike COSE, JWA fixes the curve
    /// of each ECDSA algorithm.
    public func fits(_ curve: Curve) -> Bool {
        switch self {
        case .es256: return curve == .p256
        case .es384: return curve == .p384
        case .es512: return curve == .p521
        case .edDSA: return curve == .ed25519 || curve == .ed448
        }
    }

    /// The algorithm for a signing key on `curve`, if JOSE has one.
    public static func forSigning(with curve: Curve) -> JWSAlgorithm? {
        allCases.first { $0.fits(curve) }
    }
}

/// A JWS in compact serialization (RFC 7515 section 7.1): `header.payload.signature`.
///
/// The signing input is kept exactly as received (the first two parts and the dot, as ASCII):
/// the signature is checked over those bytes, never over a re-encoding.
public struct JWS: Sendable {
    /// The compact serialization as received.
    public let compact: String
    /// The protected header members.
    public let header: [String: JSONValue]
    /// The decoded payload.
    public let payload: [UInt8]
    /// The decoded signature (raw r‖s for ECDSA). Empty for an unsecured JWS (`alg` none).
    public let signature: [UInt8]
    /// ASCII(BASE64URL(header) "." BASE64URL(payload)) as received.
    public let signingInput: [UInt8]

    /// Parses a compact JWS. Nothing is verified here.
    ///
    /// - Throws: ``JOSEError/malformed(_:)`` unless there are three parts of valid base64url,
    ///   the header is a JSON object with a string `alg`.
    public init(compact: String) throws(JOSEError) {
        let serialization = try CompactSerialization(compact, count: 3, kind: "JWS")
        guard let payload = serialization.decoded(1) else { throw .malformed("JWS payload is not base64url") }
        guard let signature = serialization.decoded(2) else {
            throw .malformed("JWS signature is not base64url")
        }
        let header = try serialization.header()
        guard header["alg"]?.stringValue != nil else { throw .malformed("JWS header has no alg") }
        self.compact = compact
        self.header = header
        self.payload = payload
        self.signature = signature
        self.signingInput =
            Array(serialization.parts[0].utf8) + [UInt8(ascii: ".")] + Array(serialization.parts[1].utf8)
    }

    /// The `alg` header value as written.
    public var algorithmName: String { header["alg"]?.stringValue ?? "" }

    /// The `alg` header, if it is one of ours.
    public var algorithm: JWSAlgorithm? { JWSAlgorithm(rawValue: algorithmName) }

    /// Whether this is an unsecured JWS (`alg` "none", RFC 7519 section 6): nothing vouches
    /// for it.
    public var isUnsecured: Bool { algorithmName == "none" }

    /// The `typ` header.
    public var type: String? { header["typ"]?.stringValue }

    /// The `kid` header.
    public var keyID: String? { header["kid"]?.stringValue }

    /// The payload as a JSON object (a JWT claims set).
    public func payloadJSON() throws(JOSEError) -> [String: JSONValue] {
        guard let object = try JSONValue(parsing: payload).objectValue else {
            throw .malformed("JWS payload is not a JSON object")
        }
        return object
    }

    /// How many `x5c` certificates are read (a leaf and its intermediates; RFC 7515 allows the
    /// root too).
    public static let maximumChainLength = 16

    /// The `x5c` header (RFC 7515 section 4.1.6): standard base64 (not base64url) DER
    /// certificates, the signer's first. Empty when absent; more than ``maximumChainLength``
    /// is refused.
    public func certificateChain() throws(JOSEError) -> [Certificate] {
        guard let value = header["x5c"] else { return [] }
        guard let entries = value.arrayValue, !entries.isEmpty else {
            throw .malformed("x5c is not a non-empty array")
        }
        // A chain is a leaf and a few intermediates: more is not parsed.
        guard entries.count <= Self.maximumChainLength else {
            throw .malformed("x5c has \(entries.count) certificates; at most \(Self.maximumChainLength) are read")
        }
        var chain: [Certificate] = []
        for entry in entries {
            guard let text = entry.stringValue, let der = Data(base64Encoded: text) else {
                throw .malformed("x5c entry \(chain.count) is not standard base64")
            }
            do {
                chain.append(try Certificate.cached(der: [UInt8](der)))
            } catch {
                throw .malformed("x5c entry \(chain.count): \(error)")
            }
        }
        return chain
    }

    /// The `jwk` header, if present.
    public func headerJWK() throws(JOSEError) -> JWK? {
        guard let value = header["jwk"] else { return nil }
        return try JWK(json: value)
    }

    /// Checks the signature with `key`.
    ///
    /// - Throws: ``JOSEError/unsupportedAlgorithm(_:)`` for `alg` none, an algorithm we do not
    ///   implement, one that does not fit the key's curve, a `crit` header (no extension is
    ///   understood) or a `b64` header other than true (RFC 7797); ``JOSEError/invalidSignature``
    ///   if the signature does not verify.
    public func verify(with key: PublicKey) throws(JOSEError) {
        guard let algorithm else { throw .unsupportedAlgorithm("JWS alg \(algorithmName)") }
        guard header["crit"] == nil else { throw .unsupportedAlgorithm("JWS crit header parameters") }
        // RFC 7797: with `b64` false the signature covers the payload unencoded, not the
        // base64url text we received and check. Only the default (absent, or true) is ours.
        if let b64 = header["b64"], b64 != .bool(true) {
            throw .unsupportedAlgorithm("JWS b64 header other than true (RFC 7797 unencoded payload)")
        }
        guard algorithm.fits(key.curve) else {
            throw .unsupportedAlgorithm("\(algorithm.rawValue) with a \(key.curve.rawValue) key")
        }
        guard key.isValidSignature(signature, for: signingInput, algorithm: algorithm.signatureAlgorithm) else {
            throw .invalidSignature
        }
    }

    /// Signs `payload` into a compact JWS.
    ///
    /// - Parameters:
    ///   - header: further protected header members (`typ`, `kid`, `x5c`, ...); `alg` is set
    ///     here.
    ///   - algorithm: defaults to the one that fits the key.
    public static func sign(
        payload: [UInt8], header: [String: JSONValue] = [:], key: PrivateKey, algorithm: JWSAlgorithm? = nil
    ) throws(JOSEError) -> String {
        guard let algorithm = algorithm ?? JWSAlgorithm.forSigning(with: key.curve), algorithm.fits(key.curve) else {
            throw .unsupportedAlgorithm("no JWS algorithm for a \(key.curve.rawValue) key")
        }
        return try sign(payload: payload, header: header, algorithm: algorithm) { (input) throws(JOSEError) in
            do throws(CryptoError) {
                return try key.sign(input, algorithm: algorithm.signatureAlgorithm)
            } catch {
                throw .key(error)
            }
        }
    }

    /// Signs `payload` into a compact JWS with a key held elsewhere (a secure area): `signer`
    /// gets the signing input and returns the raw signature (r‖s for ECDSA).
    ///
    /// - Parameters:
    ///   - header: further protected header members; `alg` is set here.
    public static func sign<Failure: Error>(
        payload: [UInt8], header: [String: JSONValue] = [:], algorithm: JWSAlgorithm,
        signer: ([UInt8]) throws(Failure) -> [UInt8]
    ) throws(Failure) -> String {
        var members = header
        members["alg"] = .string(algorithm.rawValue)
        let input =
            Base64URL.encode(JSONValue.object(members).serialized) + "." + Base64URL.encode(payload)
        let signature = try signer(Array(input.utf8))
        return input + "." + Base64URL.encode(signature)
    }

    /// An unsecured JWS (`alg` none, empty signature), for requests that must not be signed
    /// (OpenID4VP `redirect_uri:` verifiers) and tests.
    public static func unsecured(payload: [UInt8], header: [String: JSONValue] = [:]) -> String {
        var members = header
        members["alg"] = "none"
        return Base64URL.encode(JSONValue.object(members).serialized) + "." + Base64URL.encode(payload) + "."
    }

    /// The `x5c` header value for `chain` (standard base64 DER, leaf first).
    public static func x5cHeader(_ chain: [Certificate]) -> JSONValue {
        .array(chain.map { .string(Data($0.der).base64EncodedString()) })
    }
}

import JOSE
import MdocCrypto

/// The verifier metadata a request carries in `client_metadata` (OpenID4VP 1.0 sections 5.1
/// and 11), the members a holder of mdocs uses. Unknown members are ignored.
public struct ClientMetadata: Sendable, Equatable {
    /// `jwks.keys`: keys to encrypt the response to. Keys of a type or curve JOSE cannot use
    /// are skipped (the verifier may list keys for other wallets).
    public var encryptionKeys: [JWK]
    /// `encrypted_response_enc_values_supported`, default `["A128GCM"]`.
    public var encryptedResponseEncValues: [String]
    /// `vp_formats_supported.mso_mdoc`, if `vp_formats_supported` is present (nil: not given).
    public var mdocFormat: MdocFormat?
    /// Whether `vp_formats_supported` lists dc+sd-jwt.
    public var listsSDJWT = false
    /// Whether `vp_formats_supported` was given at all.
    public var hasVPFormats: Bool
    /// `client_name`.
    public var clientName: String?
    /// `logo_uri`.
    public var logoURI: String?
    /// Pre-1.0 (ISO/IEC TS 18013-7): `authorization_encrypted_response_alg`.
    public var legacyEncryptedResponseAlg: String?
    /// Pre-1.0: `authorization_encrypted_response_enc`.
    public var legacyEncryptedResponseEnc: String?

    /// The algorithm lists of `vp_formats_supported.mso_mdoc` (COSE algorithm identifiers).
    public struct MdocFormat: Sendable, Equatable {
        /// `issuerauth_alg_values`; nil: any.
        public var issuerAuthAlgValues: [Int]?
        /// `deviceauth_alg_values`; nil: any.
        public var deviceAuthAlgValues: [Int]?

        public init(issuerAuthAlgValues: [Int]? = nil, deviceAuthAlgValues: [Int]? = nil) {
            self.issuerAuthAlgValues = issuerAuthAlgValues
            self.deviceAuthAlgValues = deviceAuthAlgValues
        }

        /// Whether an IssuerAuth made with `algorithm` by a key on `curve` is accepted: the
        /// COSE `alg` itself or the fully-specified algorithm of that pair
        /// (draft-ietf-jose-fully-specified-algorithms) is listed.
        public func acceptsIssuerAuth(_ algorithm: SignatureAlgorithm, curve: Curve) -> Bool {
            guard let values = issuerAuthAlgValues else { return true }
            return Self.matches(values, algorithm: algorithm, curve: curve)
        }

        /// Whether a deviceSignature made with `algorithm` by a key on `curve` is accepted.
        /// (This holder signs online responses; it does not MAC them.)
        public func acceptsDeviceSignature(_ algorithm: SignatureAlgorithm, curve: Curve) -> Bool {
            guard let values = deviceAuthAlgValues else { return true }
            return Self.matches(values, algorithm: algorithm, curve: curve)
        }

        static func matches(_ values: [Int], algorithm: SignatureAlgorithm, curve: Curve) -> Bool {
            if values.contains(algorithm.rawValue) { return true }
            // Fully specified: ESP256 -9, ESP384 -51, ESP512 -52, Ed25519 -19, Ed448 -53.
            let fullySpecified: Int?
            switch (algorithm, curve) {
            case (.es256, .p256): fullySpecified = -9
            case (.es384, .p384): fullySpecified = -51
            case (.es512, .p521): fullySpecified = -52
            case (.edDSA, .ed25519): fullySpecified = -19
            case (.edDSA, .ed448): fullySpecified = -53
            default: fullySpecified = nil
            }
            return fullySpecified.map { values.contains($0) } ?? false
        }
    }

    public init(
        encryptionKeys: [JWK] = [], encryptedResponseEncValues: [String] = ["A128GCM"], mdocFormat: MdocFormat? = nil,
        hasVPFormats: Bool = false, clientName: String? = nil, logoURI: String? = nil
    ) {
        self.encryptionKeys = encryptionKeys
        self.encryptedResponseEncValues = encryptedResponseEncValues
        self.mdocFormat = mdocFormat
        self.hasVPFormats = hasVPFormats || mdocFormat != nil
        self.clientName = clientName
        self.logoURI = logoURI
    }

    /// Reads `client_metadata`.
    ///
    /// - Throws: `invalid_request` for a member of the wrong type.
    public init(json: JSONValue) throws(AuthorizationError) {
        guard let members = json.objectValue else { throw .invalidRequest("client_metadata is not a JSON object") }
        self.init()
        if let jwks = members["jwks"] {
            guard let keys = jwks["keys"]?.arrayValue else {
                throw .invalidRequest("client_metadata.jwks has no keys array")
            }
            // Each key is decoded (a point on its curve): a verifier has one or a few.
            try DCQLQuery.bound(keys.count, DCQLQuery.maximumListLength, "client_metadata.jwks.keys")
            // Keys this implementation cannot read (RSA, brainpool) are not for us.
            encryptionKeys = keys.compactMap { try? JWK(json: $0) }
        }
        if let enc = members["encrypted_response_enc_values_supported"] {
            guard let values = enc.arrayValue?.compactMap(\.stringValue), !values.isEmpty,
                values.count == enc.arrayValue?.count
            else { throw .invalidRequest("encrypted_response_enc_values_supported is not a non-empty string array") }
            try DCQLQuery.bound(values.count, DCQLQuery.maximumListLength, "encrypted_response_enc_values_supported")
            encryptedResponseEncValues = values
        }
        // OpenID4VP 1.0 calls it vp_formats_supported; drafts before it, vp_formats.
        if let formats = members["vp_formats_supported"] ?? members["vp_formats"] {
            guard let formatMembers = formats.objectValue else {
                throw .invalidRequest("vp_formats_supported is not a JSON object")
            }
            hasVPFormats = true
            listsSDJWT = formatMembers["dc+sd-jwt"] != nil
            if let mdoc = formatMembers["mso_mdoc"] {
                guard mdoc.objectValue != nil || mdoc.isNull else {
                    throw .invalidRequest("vp_formats_supported.mso_mdoc is not a JSON object")
                }
                mdocFormat = MdocFormat(
                    issuerAuthAlgValues: try Self.algorithms(mdoc["issuerauth_alg_values"], "issuerauth_alg_values"),
                    deviceAuthAlgValues: try Self.algorithms(mdoc["deviceauth_alg_values"], "deviceauth_alg_values"))
            }
        }
        clientName = try Self.string(members["client_name"], "client_name")
        logoURI = try Self.string(members["logo_uri"], "logo_uri")
        legacyEncryptedResponseAlg = try Self.string(
            members["authorization_encrypted_response_alg"], "authorization_encrypted_response_alg")
        legacyEncryptedResponseEnc = try Self.string(
            members["authorization_encrypted_response_enc"], "authorization_encrypted_response_enc")
    }

    private static func string(_ value: JSONValue?, _ name: String) throws(AuthorizationError) -> String? {
        guard let value else { return nil }
        guard let s = value.stringValue else { throw .invalidRequest("client_metadata.\(name) is not a string") }
        return s
    }

    private static func algorithms(_ value: JSONValue?, _ name: String) throws(AuthorizationError) -> [Int]? {
        guard let value else { return nil }
        guard let array = value.arrayValue, !array.isEmpty else {
            throw .invalidRequest("\(name) is not a non-empty array")
        }
        try DCQLQuery.bound(array.count, DCQLQuery.maximumListLength, name)
        var result: [Int] = []
        for entry in array {
            guard let n = entry.intValue else { throw .invalidRequest("\(name) holds a non-integer") }
            result.append(n)
        }
        return result
    }
}

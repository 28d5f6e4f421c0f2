import JOSE
import OAuthWeb
import PrintableText

/// Credential Issuer Metadata (OpenID4VCI 1.0 section 12.2), as fetched from
/// `/.well-known/openid-credential-issuer`: the issuer's endpoints and what it issues.
public struct CredentialIssuerMetadata: Sendable, Equatable {
    /// The media type asked for.
    public static let accept = "application/json"
    /// The well-known suffix.
    public static let wellKnownSuffix = "openid-credential-issuer"

    /// `credential_issuer`: must be the identifier the metadata was fetched for.
    public var credentialIssuer: String
    /// `authorization_servers`: when absent, the issuer is its own authorization server.
    public var authorizationServers: [String]
    public var credentialEndpoint: String
    public var nonceEndpoint: String?
    public var deferredCredentialEndpoint: String?
    public var notificationEndpoint: String?
    /// `batch_credential_issuance.batch_size`: how many proofs one request may carry (1 when
    /// absent).
    public var batchSize: Int
    /// `credential_response_encryption.encryption_required`.
    public var encryptionRequired: Bool
    /// `credential_response_encryption`, when the issuer can encrypt its answers.
    public var responseEncryption: ResponseEncryptionMetadata?
    /// `credential_request_encryption`, when the issuer takes encrypted requests.
    public var requestEncryption: RequestEncryptionMetadata?
    /// The issuer's display name for the user (`display[].name`), preferring English.
    public var displayName: String?
    /// `credential_configurations_supported`, by ID.
    public var configurations: [String: CredentialConfiguration]
    /// Whether the members came from signed metadata that verified (``SignedIssuerMetadata``).
    public var isSigned: Bool

    /// Reads the metadata (unsigned JSON; see ``SignedIssuerMetadata`` for the signed forms)
    /// and checks it belongs to `issuer`.
    ///
    /// - Throws: ``IssuanceError/invalidMetadata(_:)`` naming the member.
    public init(body: [UInt8], issuer: String) throws(IssuanceError) {
        let json = try JSONValue(parsing: body) { error in
            IssuanceError.invalidMetadata("the credential issuer metadata is not JSON (\(error))")
        }
        try self.init(json: json, issuer: issuer, signed: false)
    }

    /// Reads parsed metadata; `signed` when its members come from verified signed metadata.
    init(json: JSONValue, issuer: String, signed: Bool) throws(IssuanceError) {
        guard json.objectValue != nil else { throw .invalidMetadata("the credential issuer metadata is not an object") }
        guard let credentialIssuer = json["credential_issuer"]?.stringValue else {
            throw .invalidMetadata("credential_issuer is missing")
        }
        guard IssuerIdentifier.same(credentialIssuer, issuer) else {
            throw .invalidMetadata("credential_issuer is not the issuer of the offer")
        }
        self.credentialIssuer = credentialIssuer
        authorizationServers = try Metadata.urls(json, "authorization_servers")
        credentialEndpoint = try Metadata.requiredURL(json, "credential_endpoint")
        nonceEndpoint = try Metadata.url(json, "nonce_endpoint")
        deferredCredentialEndpoint = try Metadata.url(json, "deferred_credential_endpoint")
        notificationEndpoint = try Metadata.url(json, "notification_endpoint")
        if let batch = json["batch_credential_issuance"] {
            guard let size = batch["batch_size"]?.intValue, size >= 2 else {
                throw .invalidMetadata("batch_credential_issuance.batch_size must be an integer of 2 or more")
            }
            batchSize = size
        } else {
            batchSize = 1
        }
        encryptionRequired = json["credential_response_encryption"]?["encryption_required"]?.boolValue ?? false
        responseEncryption = try json["credential_response_encryption"].map {
            (value) throws(IssuanceError) in try ResponseEncryptionMetadata(json: value)
        }
        requestEncryption = try json["credential_request_encryption"].map {
            (value) throws(IssuanceError) in try RequestEncryptionMetadata(json: value)
        }
        displayName = Display.name(json["display"])
        guard let supported = json["credential_configurations_supported"]?.objectValue, !supported.isEmpty else {
            throw .invalidMetadata("credential_configurations_supported is missing or empty")
        }
        guard supported.count <= Self.maximumConfigurations else {
            throw .invalidMetadata(
                "credential_configurations_supported has \(supported.count) configurations, more than the "
                    + "\(Self.maximumConfigurations) this wallet reads")
        }
        var configurations: [String: CredentialConfiguration] = [:]
        for (id, value) in supported {
            configurations[id] = try CredentialConfiguration(id: id, json: value)
        }
        self.configurations = configurations
        isSigned = signed
    }

    /// How many entries `credential_configurations_supported` may have. Issuers publish one per
    /// credential type and format (a few to a few dozen); more is refused, so a 1 MiB document
    /// is read in linear time and no step later walks an unbounded list.
    public static let maximumConfigurations = 256
    /// How many claims (`credential_metadata.claims`) one configuration may describe (an mDL
    /// has about 40 elements, the EU PID about 30).
    public static let maximumClaims = 256
    /// How many entries any other list of the metadata (authorization servers, binding
    /// methods, algorithms, display entries, claim path components) may have.
    public static let maximumListLength = 64
}

/// One entry of `credential_configurations_supported`.
public struct CredentialConfiguration: Sendable, Equatable {
    public var id: String
    /// `format`: `mso_mdoc` and `dc+sd-jwt` are received here.
    public var format: String
    /// `doctype` (mso_mdoc).
    public var docType: String?
    /// `vct` (dc+sd-jwt): the SD-JWT VC type.
    public var vct: String?
    /// `scope`, for the authorization code flow.
    public var scope: String?
    /// `cryptographic_binding_methods_supported` (mso_mdoc: `cose_key`).
    public var bindingMethods: [String]
    /// `proof_types_supported.jwt.proof_signing_alg_values_supported`; nil when the issuer
    /// takes no jwt proof (then no key is bound).
    public var jwtProofAlgorithms: [String]?
    /// `proof_types_supported.jwt.key_attestations_required` is present: the issuer takes a
    /// key proof only with a key attestation (OpenID4VCI 1.0 appendix D).
    public var requiresKeyAttestation = false
    /// The configuration's display name (`credential_metadata.display[].name`).
    public var displayName: String?
    /// The claims it will hold, with their display names (`credential_metadata.claims`).
    public var claims: [ClaimDescription]

    init(id: String, json: JSONValue) throws(IssuanceError) {
        guard json.objectValue != nil else { throw .invalidMetadata("configuration \(id) is not an object") }
        guard let format = json["format"]?.stringValue else {
            throw .invalidMetadata("configuration \(id) has no format")
        }
        self.id = id
        self.format = format
        docType = json["doctype"]?.stringValue
        vct = json["vct"]?.stringValue
        scope = json["scope"]?.stringValue
        bindingMethods = json["cryptographic_binding_methods_supported"]?.arrayValue?.compactMap(\.stringValue) ?? []
        if let jwt = json["proof_types_supported"]?["jwt"] {
            jwtProofAlgorithms = jwt["proof_signing_alg_values_supported"]?.arrayValue?.compactMap(\.stringValue) ?? []
            requiresKeyAttestation = jwt["key_attestations_required"] != nil
        } else {
            jwtProofAlgorithms = nil
        }
        // 1.0 puts display and claims under credential_metadata; earlier drafts beside format.
        let metadata = json["credential_metadata"] ?? json
        displayName = Display.name(metadata["display"])
        var claims: [ClaimDescription] = []
        if let list = metadata["claims"]?.arrayValue {
            guard list.count <= CredentialIssuerMetadata.maximumClaims else {
                throw .invalidMetadata(
                    "configuration \(id) describes \(list.count) claims, more than the "
                        + "\(CredentialIssuerMetadata.maximumClaims) this wallet reads")
            }
            for entry in list {
                guard let path = entry["path"]?.arrayValue?.compactMap(\.stringValue), !path.isEmpty,
                    path.count <= CredentialIssuerMetadata.maximumListLength
                else {
                    throw .invalidMetadata("a claim of configuration \(id) has no path of strings (at most 64)")
                }
                claims.append(
                    ClaimDescription(
                        path: path, displayName: Display.name(entry["display"]),
                        mandatory: entry["mandatory"]?.boolValue ?? false))
            }
        }
        self.claims = claims
    }

    public init(
        id: String, format: String, docType: String?, vct: String? = nil, scope: String? = nil,
        bindingMethods: [String] = ["cose_key"], jwtProofAlgorithms: [String]? = ["ES256"], displayName: String? = nil,
        claims: [ClaimDescription] = []
    ) {
        self.id = id
        self.format = format
        self.docType = docType
        self.vct = vct
        self.scope = scope
        self.bindingMethods = bindingMethods
        self.jwtProofAlgorithms = jwtProofAlgorithms
        self.displayName = displayName
        self.claims = claims
    }

    /// Whether this is an mso_mdoc with a doctype.
    public var isMdoc: Bool { format == "mso_mdoc" && docType != nil }

    /// Whether this is an SD-JWT VC (`dc+sd-jwt`) with a vct.
    public var isSDJWT: Bool { format == "dc+sd-jwt" && vct != nil }

    /// Whether this holder can receive it: an mdoc or an SD-JWT VC.
    public var isReceivable: Bool { isMdoc || isSDJWT }

    /// The type the store, consent and history name it by: an mdoc's doctype, an SD-JWT VC's
    /// vct (the configuration's id when it has neither).
    public var credentialType: String { (isSDJWT ? vct : docType) ?? docType ?? vct ?? id }
}

/// A claim an issuer describes: its path (mso_mdoc: namespace, element) and display name.
public struct ClaimDescription: Sendable, Equatable {
    public var path: [String]
    public var displayName: String?
    public var mandatory: Bool

    public init(path: [String], displayName: String? = nil, mandatory: Bool = false) {
        self.path = path
        self.displayName = displayName
        self.mandatory = mandatory
    }
}

/// `display` arrays: `[{"name", "locale", ...}]`.
enum Display {
    /// The name for English (or no locale), else the first, printable and bounded.
    static func name(_ value: JSONValue?) -> String? {
        guard let entries = value?.arrayValue else { return nil }
        let named = entries.compactMap { e -> (String, String?)? in
            guard let name = e["name"]?.stringValue, !name.isEmpty else { return nil }
            return (name, e["locale"]?.stringValue)
        }
        let chosen =
            named.first { $0.1?.lowercased().hasPrefix("en") ?? false } ?? named.first { $0.1 == nil } ?? named.first
        return chosen.map { RemoteText.printable($0.0, limit: 100) }
    }
}

/// Readers of URL members of metadata.
enum Metadata {
    static func url(_ json: JSONValue, _ name: String) throws(IssuanceError) -> String? {
        guard let value = json[name] else { return nil }
        guard let text = value.stringValue, let url = ParsedURL(text), url.scheme == "https", !url.host.isEmpty else {
            throw .invalidMetadata("\(name) must be an https URL")
        }
        return text
    }

    static func requiredURL(_ json: JSONValue, _ name: String) throws(IssuanceError) -> String {
        guard let url = try url(json, name) else { throw .invalidMetadata("\(name) is missing") }
        return url
    }

    static func urls(_ json: JSONValue, _ name: String) throws(IssuanceError) -> [String] {
        guard let value = json[name] else { return [] }
        guard let list = value.arrayValue else { throw .invalidMetadata("\(name) is not an array") }
        guard list.count <= CredentialIssuerMetadata.maximumListLength else {
            throw .invalidMetadata(
                "\(name) has \(list.count) entries, more than the \(CredentialIssuerMetadata.maximumListLength) this wallet reads"
            )
        }
        var urls: [String] = []
        for entry in list {
            guard let text = entry.stringValue, IssuerIdentifier.isValid(text) else {
                throw .invalidMetadata("\(name) holds something that is not an https URL")
            }
            urls.append(text)
        }
        return urls
    }

    static func strings(_ json: JSONValue, _ name: String) -> [String] {
        json[name]?.arrayValue?.compactMap(\.stringValue) ?? []
    }
}

import JOSE
import OAuthWeb
import PrintableText

/// A Credential Offer (OpenID4VCI 1.0 section 4.1.1): which issuer, which credential
/// configurations, and the grants the wallet may use to get an access token.
public struct CredentialOffer: Sendable, Equatable {
    /// `credential_issuer`: the Credential Issuer Identifier (an https URL).
    public var credentialIssuer: String
    /// `credential_configuration_ids`: keys of the issuer metadata's
    /// `credential_configurations_supported`, at least one.
    public var credentialConfigurationIDs: [String]
    /// The `urn:ietf:params:oauth:grant-type:pre-authorized_code` grant, when offered.
    public var preAuthorizedCode: PreAuthorizedCodeGrant?
    /// The `authorization_code` grant, when offered.
    public var authorizationCode: AuthorizationCodeGrant?

    /// The pre-authorized code grant type (RFC 6749 extension grant, OpenID4VCI section 4.1.1).
    public static let preAuthorizedGrantType = "urn:ietf:params:oauth:grant-type:pre-authorized_code"

    public init(
        credentialIssuer: String, credentialConfigurationIDs: [String],
        preAuthorizedCode: PreAuthorizedCodeGrant? = nil, authorizationCode: AuthorizationCodeGrant? = nil
    ) {
        self.credentialIssuer = credentialIssuer
        self.credentialConfigurationIDs = credentialConfigurationIDs
        self.preAuthorizedCode = preAuthorizedCode
        self.authorizationCode = authorizationCode
    }

    /// Reads the offer's JSON object.
    ///
    /// - Throws: ``IssuanceError/invalidOffer(_:)`` naming the member that is missing or wrong.
    public init(json: JSONValue) throws(IssuanceError) {
        guard json.objectValue != nil else { throw .invalidOffer("it is not a JSON object") }
        guard let issuer = json["credential_issuer"]?.stringValue else {
            throw .invalidOffer("credential_issuer is missing or not a string")
        }
        guard IssuerIdentifier.isValid(issuer) else {
            throw .invalidOffer("credential_issuer must be an https URL without query or fragment")
        }
        guard let ids = json["credential_configuration_ids"]?.arrayValue, !ids.isEmpty else {
            throw .invalidOffer("credential_configuration_ids is missing or empty")
        }
        guard ids.count <= Self.maximumConfigurationIDs else {
            throw .invalidOffer(
                "credential_configuration_ids names \(ids.count) configurations, more than the "
                    + "\(Self.maximumConfigurationIDs) this wallet takes in one offer; ask the issuer for a smaller offer"
            )
        }
        let configurationIDs = try Self.distinct(ids)
        credentialIssuer = issuer
        credentialConfigurationIDs = configurationIDs
        preAuthorizedCode = nil
        authorizationCode = nil
        if let grants = json["grants"] {
            guard grants.objectValue != nil else { throw .invalidOffer("grants is not a JSON object") }
            if let grant = grants[Self.preAuthorizedGrantType] {
                preAuthorizedCode = try PreAuthorizedCodeGrant(json: grant)
            }
            if let grant = grants["authorization_code"] {
                authorizationCode = try AuthorizationCodeGrant(json: grant)
            }
        }
    }

    /// How many `credential_configuration_ids` one offer may name. Offers name one or a few
    /// configurations (OpenID4VCI 1.0 section 4.1.1 examples, the EUDI issuers); more is refused
    /// before anything is fetched, so a 1 MiB offer of ids costs no more than reading it.
    public static let maximumConfigurationIDs = 64

    /// The ids in their first order, repeats dropped (linear: one set lookup per id).
    static func distinct(_ ids: [JSONValue]) throws(IssuanceError) -> [String] {
        var seen = Set<String>(minimumCapacity: ids.count)
        var distinct: [String] = []
        distinct.reserveCapacity(ids.count)
        for id in ids {
            guard let id = id.stringValue, !id.isEmpty else {
                throw .invalidOffer("credential_configuration_ids holds something that is not a string")
            }
            if seen.insert(id).inserted { distinct.append(id) }
        }
        return distinct
    }

    /// Reads the offer from JSON text.
    public init(jsonText: String) throws(IssuanceError) {
        let json = try JSONValue(parsing: jsonText) { error in IssuanceError.invalidOffer("it is not JSON (\(error))") }
        try self.init(json: json)
    }
}

/// The pre-authorized code grant of an offer.
public struct PreAuthorizedCodeGrant: Sendable, Equatable {
    /// `pre-authorized_code`: a secret; never shown or logged.
    public var preAuthorizedCode: String
    /// `tx_code`: present when the user must give a transaction code the issuer sent another way.
    public var transactionCode: TransactionCodeDescription?
    /// `authorization_server`: which of the issuer's authorization servers to use.
    public var authorizationServer: String?

    public init(
        preAuthorizedCode: String, transactionCode: TransactionCodeDescription? = nil,
        authorizationServer: String? = nil
    ) {
        self.preAuthorizedCode = preAuthorizedCode
        self.transactionCode = transactionCode
        self.authorizationServer = authorizationServer
    }

    init(json: JSONValue) throws(IssuanceError) {
        guard let code = json["pre-authorized_code"]?.stringValue, !code.isEmpty else {
            throw .invalidOffer("the pre-authorized_code grant has no pre-authorized_code")
        }
        preAuthorizedCode = code
        transactionCode = try json["tx_code"].map { (value) throws(IssuanceError) in
            try TransactionCodeDescription(json: value)
        }
        authorizationServer = try Self.server(json)
    }

    static func server(_ json: JSONValue) throws(IssuanceError) -> String? {
        guard let value = json["authorization_server"] else { return nil }
        guard let server = value.stringValue, IssuerIdentifier.isValid(server) else {
            throw .invalidOffer("authorization_server must be an https URL")
        }
        return server
    }
}

/// The authorization code grant of an offer.
public struct AuthorizationCodeGrant: Sendable, Equatable {
    /// `issuer_state`: sent back in the authorization request.
    public var issuerState: String?
    public var authorizationServer: String?

    public init(issuerState: String? = nil, authorizationServer: String? = nil) {
        self.issuerState = issuerState
        self.authorizationServer = authorizationServer
    }

    init(json: JSONValue) throws(IssuanceError) {
        guard json.objectValue != nil else { throw .invalidOffer("the authorization_code grant is not an object") }
        if let state = json["issuer_state"] {
            guard let text = state.stringValue else { throw .invalidOffer("issuer_state is not a string") }
            issuerState = text
        } else {
            issuerState = nil
        }
        authorizationServer = try PreAuthorizedCodeGrant.server(json)
    }
}

/// What the offer says of the transaction code (`tx_code`, OpenID4VCI section 4.1.1): how it
/// is typed, how long it is, where the user finds it.
public struct TransactionCodeDescription: Sendable, Equatable {
    public enum InputMode: String, Sendable {
        case numeric
        case text
    }

    /// `input_mode`, default numeric.
    public var inputMode: InputMode
    /// `length`, when given.
    public var length: Int?
    /// `description` (at most 300 characters), control characters replaced.
    public var description: String?

    public init(inputMode: InputMode = .numeric, length: Int? = nil, description: String? = nil) {
        self.inputMode = inputMode
        self.length = length
        self.description = description
    }

    init(json: JSONValue) throws(IssuanceError) {
        guard json.objectValue != nil else { throw .invalidOffer("tx_code is not a JSON object") }
        if let mode = json["input_mode"] {
            guard let text = mode.stringValue, let parsed = InputMode(rawValue: text) else {
                throw .invalidOffer("tx_code input_mode must be numeric or text")
            }
            inputMode = parsed
        } else {
            inputMode = .numeric
        }
        if let length = json["length"] {
            guard let n = length.intValue, n > 0, n <= 64 else {
                throw .invalidOffer("tx_code length must be a positive integer")
            }
            self.length = n
        } else {
            length = nil
        }
        description = json["description"]?.stringValue.map { RemoteText.printable($0, limit: 300) }
    }

    /// Checks a code the user typed against this description (never quoting it).
    ///
    /// - Throws: ``IssuanceError/invalidTransactionCode(_:)``.
    public func check(_ code: String) throws(IssuanceError) {
        guard !code.isEmpty else { throw .invalidTransactionCode("is empty") }
        if inputMode == .numeric, !code.unicodeScalars.allSatisfy({ ("0"..."9").contains($0) }) {
            throw .invalidTransactionCode("must be digits only")
        }
        if let length, code.count != length {
            throw .invalidTransactionCode("must be \(length) characters long, not \(code.count)")
        }
    }
}

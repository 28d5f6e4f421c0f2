import Consent
import JOSE
import SDJWT

/// A Digital Credentials Query Language query (OpenID4VP 1.0 section 6): which credentials,
/// which of their claims, and which combinations of credentials answer the request.
///
/// Every credential query is read and checked whatever its format; only `mso_mdoc` ones can be
/// answered by this holder (the matcher treats the others as having no credential).
public struct DCQLQuery: Sendable, Equatable {
    /// The credential format identifier of ISO mdocs.
    public static let mdocFormat = "mso_mdoc"
    /// The credential format identifier of SD-JWT VCs (OpenID4VP 1.0 appendix B.3).
    public static let sdJWTFormat = "dc+sd-jwt"

    /// How many credential queries (`credentials`) one query may hold. Verifiers ask for one
    /// or a few credentials (OpenID4VP 1.0 section 6 and appendix D examples, ISO 18013-7).
    public static let maximumCredentialQueries = 64
    /// How many claims queries one credential query may hold (an mDL has about 40 elements).
    public static let maximumClaims = 256
    /// How many `claim_sets` one credential query may hold (the examples have two or three).
    public static let maximumClaimSets = 64
    /// How many `credential_sets`, and how many `options` in one set.
    public static let maximumCredentialSets = 64
    /// How many entries any other list of a query may have: the claim ids of one claim set
    /// option (bounded by ``maximumClaims`` too), the credential ids of one credential set
    /// option, a claim's `values`, `vct_values`, the components of a claims path.
    public static let maximumListLength = 64

    /// `credentials`: at least one, ids unique.
    public var credentials: [CredentialQuery]
    /// `credential_sets`, if given.
    public var credentialSets: [CredentialSetQuery]?

    /// A Credential Query (section 6.1).
    public struct CredentialQuery: Sendable, Equatable {
        /// `id`: letters, digits, `_` and `-`.
        public var id: String
        /// `format`, e.g. "mso_mdoc".
        public var format: String
        /// `multiple` (default false).
        public var multiple: Bool
        /// `meta.doctype_value` (mso_mdoc).
        public var doctype: String?
        /// `meta.vct_values` (dc+sd-jwt): the credential types that answer.
        public var vctValues: [String]?
        /// `claims`, if given (nil: no claims requested).
        public var claims: [ClaimQuery]?
        /// `claim_sets`: claim ids, most preferred option first.
        public var claimSets: [[String]]?
        /// `require_cryptographic_holder_binding` (default true; mdocs always bind).
        public var requireCryptographicHolderBinding: Bool

        public init(
            id: String, format: String = DCQLQuery.mdocFormat, doctype: String?, claims: [ClaimQuery]? = nil,
            claimSets: [[String]]? = nil, multiple: Bool = false, requireCryptographicHolderBinding: Bool = true,
            vctValues: [String]? = nil
        ) {
            self.id = id
            self.format = format
            self.doctype = doctype
            self.vctValues = vctValues
            self.claims = claims
            self.claimSets = claimSets
            self.multiple = multiple
            self.requireCryptographicHolderBinding = requireCryptographicHolderBinding
        }

        /// Whether this asks for an ISO mdoc.
        public var isMdoc: Bool { format == DCQLQuery.mdocFormat }
        /// Whether this asks for an SD-JWT VC.
        public var isSDJWT: Bool { format == DCQLQuery.sdJWTFormat }
    }

    /// A Claims Query (section 6.3).
    public struct ClaimQuery: Sendable, Equatable {
        /// `id` (required when the credential query has `claim_sets`).
        public var id: String?
        /// `path`: for mso_mdoc exactly `[namespace, element identifier]`.
        public var path: [JSONValue]
        /// `values`: the claim is usable only if its value is one of these.
        public var values: [JSONValue]?
        /// `intent_to_retain` (mso_mdoc).
        public var intentToRetain: Bool

        public init(id: String? = nil, path: [JSONValue], values: [JSONValue]? = nil, intentToRetain: Bool = false) {
            self.id = id
            self.path = path
            self.values = values
            self.intentToRetain = intentToRetain
        }

        /// An mdoc claim: `["namespace", "element"]`.
        public init(id: String? = nil, _ nameSpace: String, _ element: String, intentToRetain: Bool = false) {
            self.init(id: id, path: [.string(nameSpace), .string(element)], intentToRetain: intentToRetain)
        }

        /// The data element the path names, when it is a two-string mdoc path.
        public var element: ElementID? {
            guard path.count == 2, let nameSpace = path[0].stringValue, let identifier = path[1].stringValue else {
                return nil
            }
            return ElementID(nameSpace, identifier)
        }
    }

    /// A Credential Set Query (section 6.2).
    public struct CredentialSetQuery: Sendable, Equatable {
        /// `options`: each a list of credential query ids that together satisfy the set.
        public var options: [[String]]
        /// `required` (default true).
        public var required: Bool

        public init(options: [[String]], required: Bool = true) {
            self.options = options
            self.required = required
        }
    }

    /// A query from its parts, checked like a parsed one.
    public init(credentials: [CredentialQuery], credentialSets: [CredentialSetQuery]? = nil) throws(AuthorizationError)
    {
        self.credentials = credentials
        self.credentialSets = credentialSets
        try validate()
    }

    /// Reads `dcql_query`. Unknown members are ignored (section 6).
    ///
    /// - Throws: `invalid_request` naming the member that breaks the rules of section 6.
    public init(json: JSONValue) throws(AuthorizationError) {
        guard let members = json.objectValue else { throw .invalidRequest("dcql_query is not a JSON object") }
        guard let credentialValues = members["credentials"]?.arrayValue else {
            throw .invalidRequest("dcql_query.credentials is not an array")
        }
        try Self.bound(credentialValues.count, Self.maximumCredentialQueries, "dcql_query.credentials")
        var credentials: [CredentialQuery] = []
        for value in credentialValues { credentials.append(try Self.credentialQuery(value)) }
        var sets: [CredentialSetQuery]?
        if let setsValue = members["credential_sets"] {
            guard let array = setsValue.arrayValue else {
                throw .invalidRequest("dcql_query.credential_sets is not an array")
            }
            try Self.bound(array.count, Self.maximumCredentialSets, "dcql_query.credential_sets")
            var parsed: [CredentialSetQuery] = []
            for entry in array {
                guard let options = try Self.stringLists(entry["options"], Self.maximumCredentialSets, "options")
                else {
                    throw .invalidRequest("a credential set has no options array")
                }
                let required = try Self.bool(entry["required"], "credential_sets.required") ?? true
                parsed.append(CredentialSetQuery(options: options, required: required))
            }
            sets = parsed
        }
        try self.init(credentials: credentials, credentialSets: sets)
    }

    private static func credentialQuery(_ value: JSONValue) throws(AuthorizationError) -> CredentialQuery {
        guard let members = value.objectValue else { throw .invalidRequest("a credential query is not an object") }
        guard let id = members["id"]?.stringValue else { throw .invalidRequest("a credential query has no id") }
        guard let format = members["format"]?.stringValue else {
            throw .invalidRequest("a credential query has no format")
        }
        guard let meta = members["meta"]?.objectValue else {
            throw .invalidRequest("a credential query has no meta object")
        }
        var doctype: String?
        if format == mdocFormat {
            guard let value = meta["doctype_value"]?.stringValue, !value.isEmpty else {
                throw .invalidRequest("an mso_mdoc credential query has no meta.doctype_value")
            }
            doctype = value
        }
        var vctValues: [String]?
        if format == sdJWTFormat {
            guard let values = meta["vct_values"]?.arrayValue, !values.isEmpty,
                values.allSatisfy({ !($0.stringValue ?? "").isEmpty })
            else { throw .invalidRequest("a dc+sd-jwt credential query has no meta.vct_values array of strings") }
            try bound(values.count, maximumListLength, "meta.vct_values")
            vctValues = values.compactMap(\.stringValue)
        }
        var claims: [ClaimQuery]?
        if let claimsValue = members["claims"] {
            guard let array = claimsValue.arrayValue else { throw .invalidRequest("claims is not an array") }
            try bound(array.count, maximumClaims, "claims")
            var parsed: [ClaimQuery] = []
            for entry in array { parsed.append(try claimQuery(entry)) }
            claims = parsed
        }
        let claimSets = try stringLists(members["claim_sets"], maximumClaimSets, "claim_sets")
        if members["claim_sets"] != nil, claimSets == nil { throw .invalidRequest("claim_sets is not an array") }
        return CredentialQuery(
            id: id, format: format, doctype: doctype, claims: claims, claimSets: claimSets,
            multiple: try bool(members["multiple"], "multiple") ?? false,
            requireCryptographicHolderBinding: try bool(
                members["require_cryptographic_holder_binding"], "require_cryptographic_holder_binding") ?? true,
            vctValues: vctValues)
    }

    private static func claimQuery(_ value: JSONValue) throws(AuthorizationError) -> ClaimQuery {
        guard let members = value.objectValue else { throw .invalidRequest("a claims query is not an object") }
        guard let path = members["path"]?.arrayValue else { throw .invalidRequest("a claims query has no path") }
        try bound(path.count, maximumListLength, "a claims path")
        var id: String?
        if let idValue = members["id"] {
            guard let s = idValue.stringValue else { throw .invalidRequest("a claims query id is not a string") }
            id = s
        }
        var values: [JSONValue]?
        if let valuesValue = members["values"] {
            guard let array = valuesValue.arrayValue, !array.isEmpty,
                array.allSatisfy({ $0.stringValue != nil || $0.boolValue != nil || $0.intValue != nil })
            else { throw .invalidRequest("claims values is not a non-empty array of strings, integers or booleans") }
            try bound(array.count, maximumListLength, "claims values")
            values = array
        }
        return ClaimQuery(
            id: id, path: path, values: values,
            intentToRetain: try bool(members["intent_to_retain"], "intent_to_retain") ?? false)
    }

    private static func bool(_ value: JSONValue?, _ name: String) throws(AuthorizationError) -> Bool? {
        guard let value else { return nil }
        guard let b = value.boolValue else { throw .invalidRequest("\(name) is not a boolean") }
        return b
    }

    /// An array of at most `limit` arrays of strings (each of at most ``maximumClaims``); nil
    /// when absent.
    private static func stringLists(_ value: JSONValue?, _ limit: Int, _ name: String) throws(AuthorizationError)
        -> [[String]]?
    {
        guard let value else { return nil }
        guard let outer = value.arrayValue else { throw .invalidRequest("expected an array of string arrays") }
        try bound(outer.count, limit, name)
        var result: [[String]] = []
        for inner in outer {
            guard let strings = inner.arrayValue?.compactMap(\.stringValue), strings.count == inner.arrayValue?.count
            else { throw .invalidRequest("expected an array of string arrays") }
            try bound(strings.count, maximumClaims, "an option of \(name)")
            result.append(strings)
        }
        return result
    }

    /// Refuses a list longer than this wallet reads (`invalid_request`, naming the member and
    /// the limit, never the values).
    static func bound(_ count: Int, _ limit: Int, _ name: String) throws(AuthorizationError) {
        guard count <= limit else {
            throw .invalidRequest("\(name) has \(count) entries; this wallet takes at most \(limit)")
        }
    }

    /// The rules of sections 6.1 to 6.3 that the types do not enforce.
    private func validate() throws(AuthorizationError) {
        guard !credentials.isEmpty else { throw .invalidRequest("dcql_query.credentials is empty") }
        try Self.bound(credentials.count, Self.maximumCredentialQueries, "dcql_query.credentials")
        var ids = Set<String>()
        for query in credentials {
            guard Self.isIdentifier(query.id) else {
                throw .invalidRequest("a credential query id has characters outside [A-Za-z0-9_-]")
            }
            guard ids.insert(query.id).inserted else { throw .invalidRequest("a credential query id is repeated") }
            try Self.bound(query.vctValues?.count ?? 0, Self.maximumListLength, "meta.vct_values")
            try validateClaims(of: query)
        }
        if let credentialSets {
            guard !credentialSets.isEmpty else { throw .invalidRequest("credential_sets is empty") }
            try Self.bound(credentialSets.count, Self.maximumCredentialSets, "dcql_query.credential_sets")
            for set in credentialSets {
                guard !set.options.isEmpty, set.options.allSatisfy({ !$0.isEmpty }) else {
                    throw .invalidRequest("a credential set has an empty options list or option")
                }
                try Self.bound(set.options.count, Self.maximumCredentialSets, "a credential set's options")
                for option in set.options {
                    try Self.bound(option.count, Self.maximumCredentialQueries, "a credential set option")
                }
                for option in set.options where !option.allSatisfy(ids.contains) {
                    throw .invalidRequest("a credential set option names an unknown credential query")
                }
            }
        }
    }

    private func validateClaims(of query: CredentialQuery) throws(AuthorizationError) {
        guard let claims = query.claims else {
            if query.claimSets != nil { throw .invalidRequest("claim_sets without claims") }
            return
        }
        guard !claims.isEmpty else { throw .invalidRequest("claims is empty") }
        try Self.bound(claims.count, Self.maximumClaims, "claims")
        var claimIDs = Set<String>()
        for claim in claims {
            guard !claim.path.isEmpty else { throw .invalidRequest("a claims path is empty") }
            try Self.bound(claim.path.count, Self.maximumListLength, "a claims path")
            try Self.bound(claim.values?.count ?? 0, Self.maximumListLength, "claims values")
            if query.isMdoc, claim.element == nil {
                throw .invalidRequest("an mso_mdoc claims path is not [namespace, element]")
            }
            if query.isSDJWT, (try? ClaimPath(json: claim.path)) == nil {
                throw .invalidRequest("a dc+sd-jwt claims path holds something other than strings, indices and null")
            }
            if let id = claim.id {
                guard Self.isIdentifier(id) else {
                    throw .invalidRequest("a claims query id has characters outside [A-Za-z0-9_-]")
                }
                guard claimIDs.insert(id).inserted else { throw .invalidRequest("a claims query id is repeated") }
            } else if query.claimSets != nil {
                throw .invalidRequest("claim_sets is present but a claims query has no id")
            }
        }
        if let claimSets = query.claimSets {
            guard !claimSets.isEmpty, claimSets.allSatisfy({ !$0.isEmpty }) else {
                throw .invalidRequest("claim_sets is empty or holds an empty option")
            }
            try Self.bound(claimSets.count, Self.maximumClaimSets, "claim_sets")
            for option in claimSets { try Self.bound(option.count, Self.maximumClaims, "an option of claim_sets") }
            for option in claimSets where !option.allSatisfy(claimIDs.contains) {
                throw .invalidRequest("a claim_sets option names an unknown claim id")
            }
        }
    }

    static func isIdentifier(_ s: String) -> Bool {
        !s.isEmpty
            && s.unicodeScalars.allSatisfy {
                ("a"..."z").contains($0) || ("A"..."Z").contains($0) || ("0"..."9").contains($0) || $0 == "_"
                    || $0 == "-"
            }
    }
}

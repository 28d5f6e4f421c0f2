import CBOR
import Consent
import ISO18013
import JOSE
import MdocCrypto
import Presentation
import SDJWT
import SDJWTPresentable

/// A credential that answers a DCQL credential query: an mdoc or an SD-JWT VC.
public enum DCQLCredential: Sendable {
    case mdoc(PresentableCredential)
    case sdJWT(PresentableSDJWT)

    /// The store's credential ID.
    public var id: String {
        switch self {
        case .mdoc(let credential): return credential.id
        case .sdJWT(let credential): return credential.id
        }
    }

    /// The mdoc's docType or the SD-JWT VC's vct (what consent and history name).
    public var docType: String {
        switch self {
        case .mdoc(let credential): return credential.docType
        case .sdJWT(let credential): return credential.vct
        }
    }
}

/// The credentials chosen for a DCQL query and the consent request that asks the user.
public struct DCQLMatch: Sendable {
    /// One credential query answered by one credential.
    public struct Selection: Sendable {
        /// The credential query `id` (the `vp_token` key).
        public let queryID: String
        public let credential: DCQLCredential
        /// The claims of the chosen claim set, as the consent prompt shows them (all
        /// available, all required: DCQL returns a chosen set whole or not at all).
        public let elements: [RequestedElement]
        /// For an SD-JWT VC: the claims path behind each element.
        public let claimPaths: [ElementID: ClaimPath]

        public init(
            queryID: String, credential: DCQLCredential, elements: [RequestedElement],
            claimPaths: [ElementID: ClaimPath] = [:]
        ) {
            self.queryID = queryID
            self.credential = credential
            self.elements = elements
            self.claimPaths = claimPaths
        }

        /// The requested elements, in request order.
        public var elementIDs: [ElementID] { elements.map(\.id) }
        /// The elements without which this credential is not returned.
        public var requiredElements: Set<ElementID> { Set(elements.filter(\.required).map(\.id)) }
    }

    /// The query matched.
    public let query: DCQLQuery
    /// The chosen credentials, in the order of the query's credential queries.
    public let selections: [Selection]
    /// What the user is asked: channel online, one document per selection.
    public let consentRequest: ConsentRequest

    /// Credential query id → the credential that answers it.
    public var credentialsByQueryID: [String: DCQLCredential] {
        Dictionary(selections.map { ($0.queryID, $0.credential) }, uniquingKeysWith: { first, _ in first })
    }

    /// The selections that can be returned after the user's `decision`, each with the
    /// elements to disclose.
    ///
    /// A credential whose required elements were not all approved is dropped (OpenID4VP 1.0
    /// section 6.4.1); then the credential sets must still be satisfied.
    ///
    /// - Throws: `access_denied` when the user declined or what is left does not satisfy the
    ///   query.
    public func approvedSelections(_ decision: ConsentDecision) throws(AuthorizationError) -> [(
        selection: Selection, elements: [ElementID]
    )] {
        guard case .approve = decision else { throw .accessDenied("the user declined") }
        var kept: [(selection: Selection, elements: [ElementID])] = []
        for selection in selections {
            let approved = decision.approved(for: selection.credential.docType)
            let elements = selection.elementIDs.filter(approved.contains)
            guard !elements.isEmpty, selection.requiredElements.isSubset(of: approved) else { continue }
            kept.append((selection, elements))
        }
        guard let ids = DCQLMatcher.resolve(query, satisfied: Set(kept.map(\.selection.queryID))) else {
            throw .accessDenied("the approved claims do not satisfy the request")
        }
        return kept.filter { ids.contains($0.selection.queryID) }
    }
}

/// Chooses credentials for a DCQL query (OpenID4VP 1.0 section 6.4) among the holder's mdocs
/// and SD-JWT VCs.
///
/// For each mso_mdoc credential query: the credentials of its doc type (and, if the verifier
/// lists algorithms in `vp_formats_supported.mso_mdoc`, whose issuer and device algorithms it
/// accepts); for each dc+sd-jwt query: the SD-JWT VCs whose vct is in `vct_values`. Then the
/// first claim set (in the verifier's order of preference) some credential can deliver whole,
/// with `values` restrictions applied. Then the credential sets: every required set needs one
/// option whose queries all matched; optional sets are added when they can be. Credential
/// queries of other formats match nothing.
public enum DCQLMatcher {
    /// Matches `query` against `credentials` (mdocs) and `sdJWTs`.
    ///
    /// - Throws: `vp_formats_not_supported` if no credential query asks for mso_mdoc or
    ///   dc+sd-jwt; `access_denied` if the query cannot be satisfied (no credential, or none
    ///   that can deliver a whole claim set).
    public static func match(
        _ query: DCQLQuery, credentials: [PresentableCredential], sdJWTs: [PresentableSDJWT] = [],
        requester: Requester, clientMetadata: ClientMetadata? = nil
    ) throws(AuthorizationError) -> DCQLMatch {
        guard query.credentials.contains(where: { $0.isMdoc || $0.isSDJWT }) else {
            throw AuthorizationError(.vpFormatsNotSupported, "no credential query asks for mso_mdoc or dc+sd-jwt")
        }
        let usable = credentials.filter { accepts(clientMetadata?.mdocFormat, $0) }
        var found: [String: (DCQLCredential, [DCQLQuery.ClaimQuery])] = [:]
        for credentialQuery in query.credentials {
            if let (credential, claims) = satisfy(credentialQuery, with: usable) {
                found[credentialQuery.id] = (.mdoc(credential), claims)
            } else if let (credential, claims) = satisfy(credentialQuery, withSDJWTs: sdJWTs) {
                found[credentialQuery.id] = (.sdJWT(credential), claims)
            }
        }
        guard let ids = resolve(query, satisfied: Set(found.keys)), !ids.isEmpty else {
            throw .accessDenied("no credential satisfies the request")
        }
        var selections: [DCQLMatch.Selection] = []
        for credentialQuery in query.credentials where ids.contains(credentialQuery.id) {
            guard let (credential, claims) = found[credentialQuery.id] else { continue }
            var elements: [RequestedElement] = []
            var elementIndex: [ElementID: Int] = [:]
            var claimPaths: [ElementID: ClaimPath] = [:]
            for claim in claims {
                let id: ElementID
                if case .sdJWT = credential, let path = try? ClaimPath(json: claim.path) {
                    id = ElementID(claimPath: path.description)
                    claimPaths[id] = path
                } else if let element = claim.element {
                    id = element
                } else {
                    continue
                }
                if let index = elementIndex[id] {
                    // The same claim named twice: one element, retained if either says so.
                    elements[index].intentToRetain = elements[index].intentToRetain || claim.intentToRetain
                } else {
                    elementIndex[id] = elements.count
                    elements.append(
                        RequestedElement(id, intentToRetain: claim.intentToRetain, available: true, required: true))
                }
            }
            selections.append(
                DCQLMatch.Selection(
                    queryID: credentialQuery.id, credential: credential, elements: elements, claimPaths: claimPaths))
        }
        let documents = selections.map {
            DocumentRequest(
                docType: $0.credential.docType, credentialID: $0.credential.id, elements: $0.elements,
                requester: requester)
        }
        let consent = ConsentRequest(
            channel: .online, requester: requester, documents: documents, warning: warning(for: requester))
        return DCQLMatch(query: query, selections: selections, consentRequest: consent)
    }

    /// The credential and claim set that answer one credential query, if any.
    static func satisfy(_ query: DCQLQuery.CredentialQuery, with credentials: [PresentableCredential]) -> (
        PresentableCredential, [DCQLQuery.ClaimQuery]
    )? {
        guard query.isMdoc, let doctype = query.doctype else { return nil }
        // Each candidate's elements indexed once: the work is what the query names times what
        // the store holds, whatever the number of claim sets.
        let candidates = credentials.filter { $0.docType == doctype }.map { ($0, ElementIndex($0)) }
        for option in claimOptions(query) {
            for (candidate, index) in candidates where option.allSatisfy({ index.canDeliver($0) }) {
                return (candidate, option)
            }
        }
        return nil
    }

    /// One mdoc's data elements by name space and identifier.
    struct ElementIndex {
        let values: [ElementID: CBOR]

        init(_ credential: PresentableCredential) {
            var values: [ElementID: CBOR] = [:]
            for nameSpace in credential.issuerSigned.nameSpaces {
                for item in nameSpace.items {
                    let id = ElementID(nameSpace.name, item.elementIdentifier)
                    if values[id] == nil { values[id] = item.elementValue }
                }
            }
            self.values = values
        }

        /// Whether the mdoc holds the claim (and, with `values`, one of those values).
        func canDeliver(_ claim: DCQLQuery.ClaimQuery) -> Bool {
            guard let id = claim.element, let value = values[id] else { return false }
            guard let expected = claim.values else { return true }
            return expected.contains { DCQLMatcher.matches(value, $0) }
        }
    }

    /// The SD-JWT VC and claim set that answer one dc+sd-jwt credential query, if any.
    static func satisfy(_ query: DCQLQuery.CredentialQuery, withSDJWTs credentials: [PresentableSDJWT]) -> (
        PresentableSDJWT, [DCQLQuery.ClaimQuery]
    )? {
        guard query.isSDJWT, let vctValues = query.vctValues else { return nil }
        let candidates = credentials.filter { vctValues.contains($0.vct) }
        for option in claimOptions(query) {
            for candidate in candidates where option.allSatisfy({ canDeliver($0, from: candidate) }) {
                return (candidate, option)
            }
        }
        return nil
    }

    /// The claim sets of a query, the verifier's preferred first.
    private static func claimOptions(_ query: DCQLQuery.CredentialQuery) -> [[DCQLQuery.ClaimQuery]] {
        guard let claims = query.claims else { return [[]] }
        guard let claimSets = query.claimSets else { return [claims] }
        var byID: [String: DCQLQuery.ClaimQuery] = [:]
        for claim in claims { if let id = claim.id, byID[id] == nil { byID[id] = claim } }
        return claimSets.map { set in set.compactMap { byID[$0] } }
    }

    /// Whether the SD-JWT VC has a claim at the path (and, with `values`, one of those values).
    static func canDeliver(_ claim: DCQLQuery.ClaimQuery, from credential: PresentableSDJWT) -> Bool {
        guard let path = try? ClaimPath(json: claim.path) else { return false }
        let found = credential.credential.claims.values(at: path)
        guard !found.isEmpty else { return false }
        guard let values = claim.values else { return true }
        return found.contains { value in values.contains { $0 == value } }
    }

    /// Whether `credential` holds the claim (and, with `values`, one of those values).
    static func canDeliver(_ claim: DCQLQuery.ClaimQuery, from credential: PresentableCredential) -> Bool {
        ElementIndex(credential).canDeliver(claim)
    }

    /// CBOR against a DCQL value, after the RFC 8949 section 6.1 conversion (tags dropped).
    static func matches(_ value: CBOR, _ expected: JSONValue) -> Bool {
        var value = value
        while case .tagged(_, let inner) = value { value = inner }
        switch (expected, value) {
        case (.string(let s), .text(let t)): return s == t
        case (.bool(let a), .bool(let b)): return a == b
        case (.number(let n), _):
            if let i = value.intValue { return Double(i) == n }
            return false
        default: return false
        }
    }

    /// The credential query ids to return when those in `satisfied` can be answered (section
    /// 6.4.2); nil when a required credential set (or, without sets, any query) cannot be met.
    static func resolve(_ query: DCQLQuery, satisfied: Set<String>) -> Set<String>? {
        guard let sets = query.credentialSets else {
            let all = Set(query.credentials.map(\.id))
            return all.isSubset(of: satisfied) ? all : nil
        }
        let resolution = OptionMatching.resolve(
            sets.map { OptionMatching.OptionSet(options: $0.options, required: $0.required) }, satisfied: satisfied)
        guard resolution.unsatisfiedRequired.isEmpty else { return nil }
        let chosen = resolution.answered
        return chosen.isEmpty ? nil : chosen
    }

    /// Whether the verifier's `vp_formats_supported.mso_mdoc` accepts the credential's issuer
    /// signature and the device signature this holder would make.
    static func accepts(_ format: ClientMetadata.MdocFormat?, _ credential: PresentableCredential) -> Bool {
        guard let format else { return true }
        if format.issuerAuthAlgValues != nil {
            let issuerAuth = credential.issuerSigned.issuerAuth
            guard let algorithm = issuerAuth.algorithm, let der = issuerAuth.x5chain?.first,
                let curve = try? Certificate(der: der).publicKey.curve,
                format.acceptsIssuerAuth(algorithm, curve: curve)
            else { return false }
        }
        if format.deviceAuthAlgValues != nil {
            let curve = credential.deviceKey.curve
            guard let algorithm = curve.preferredSignatureAlgorithm,
                format.acceptsDeviceSignature(algorithm, curve: curve)
            else { return false }
        }
        return true
    }

    /// What the consent prompt must show first about who asks.
    static func warning(for requester: Requester) -> String? {
        switch requester.authentication {
        case .trusted: return nil
        case .unauthenticated: return "The verifier did not prove who it is."
        case .untrusted(let reason): return "The verifier is not trusted (\(reason))."
        case .invalid(let reason): return "The verifier's authentication failed (\(reason))."
        }
    }
}

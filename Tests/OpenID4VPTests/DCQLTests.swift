import CBOR
import Consent
import JOSE
import MdocCrypto
import Presentation
import Testing

@testable import OpenID4VP

@Suite struct DCQLQueryTests {
    @Test func readsAQuery() throws {
        let query = try DCQLQuery(
            json: JSONValue(
                parsing: #"""
                    {"credentials": [
                      {"id": "mdl", "format": "mso_mdoc", "meta": {"doctype_value": "org.iso.18013.5.1.mDL"},
                       "claims": [
                         {"id": "age", "path": ["org.iso.18013.5.1", "age_over_18"], "values": [true]},
                         {"id": "dob", "path": ["org.iso.18013.5.1", "birth_date"], "intent_to_retain": true}],
                       "claim_sets": [["age"], ["dob"]]},
                      {"id": "pid", "format": "dc+sd-jwt", "meta": {"vct_values": ["urn:eu:pid"]},
                       "claims": [{"path": ["address", "street", 0]}], "multiple": true}],
                     "credential_sets": [{"options": [["mdl"], ["pid"]]}, {"options": [["pid"]], "required": false}],
                     "future_member": 1}
                    """#))
        #expect(query.credentials.count == 2)
        let mdl = query.credentials[0]
        #expect(mdl.isMdoc)
        #expect(mdl.doctype == "org.iso.18013.5.1.mDL")
        #expect(mdl.claims?[0].element == ElementID("org.iso.18013.5.1", "age_over_18"))
        #expect(mdl.claims?[0].values == [true])
        #expect(mdl.claims?[1].intentToRetain == true)
        #expect(mdl.claimSets == [["age"], ["dob"]])
        #expect(!mdl.multiple)
        #expect(mdl.requireCryptographicHolderBinding)
        #expect(!query.credentials[1].isMdoc)
        #expect(query.credentials[1].multiple)
        #expect(query.credentialSets?.map(\.required) == [true, false])
    }

    static func credential(_ members: String) -> String {
        #"{"credentials":[{"id":"mdl","format":"mso_mdoc","meta":{"doctype_value":"d"}"# + members + "}]}"
    }

    @Test(arguments: [
        #"{"credentials":[]}"#,
        #"{}"#,
        #"{"credentials":[{"id":"a b","format":"mso_mdoc","meta":{"doctype_value":"d"}}]}"#,
        #"{"credentials":[{"id":"a","format":"mso_mdoc","meta":{"doctype_value":"d"}},{"id":"a","format":"mso_mdoc","meta":{"doctype_value":"d"}}]}"#,
        #"{"credentials":[{"id":"a","format":"mso_mdoc","meta":{}}]}"#,
        #"{"credentials":[{"id":"a","format":"mso_mdoc"}]}"#,
        #"{"credentials":[{"id":"a","meta":{}}]}"#,
        credential(#","claims":[]"#),
        credential(#","claims":[{"path":["ns","el","x"]}]"#),
        credential(#","claims":[{"path":["ns"]}]"#),
        credential(#","claims":[{"path":["ns",1]}]"#),
        credential(#","claim_sets":[["a"]]"#),
        credential(#","claims":[{"id":"a","path":["ns","el"]}],"claim_sets":[["b"]]"#),
        credential(#","claims":[{"path":["ns","el"]}],"claim_sets":[["a"]]"#),
        credential(#","claims":[{"id":"a","path":["ns","el"]},{"id":"a","path":["ns","e2"]}]"#),
        credential(#","claims":[{"id":"a","path":["ns","el"]}],"claim_sets":[[]]"#),
        credential(#","claims":[{"path":["ns","el"],"values":[]}]"#),
        credential(#","claims":[{"path":["ns","el"],"values":[1.5]}]"#),
        credential(#","multiple":"yes""#),
        #"{"credentials":[{"id":"a","format":"mso_mdoc","meta":{"doctype_value":"d"}}],"credential_sets":[{"options":[["b"]]}]}"#,
        #"{"credentials":[{"id":"a","format":"mso_mdoc","meta":{"doctype_value":"d"}}],"credential_sets":[]}"#,
        #"{"credentials":[{"id":"a","format":"mso_mdoc","meta":{"doctype_value":"d"}}],"credential_sets":[{"options":[]}]}"#,
    ])
    func refusesInvalidQueries(_ text: String) throws {
        let json = try JSONValue(parsing: text)
        #expect(authorizationError { _ = try DCQLQuery(json: json) }?.code == .invalidRequest)
    }
}

@Suite struct DCQLMatcherTests {
    static let mDL = TestWallet.mDL
    static let ns = TestWallet.ns
    let wallet: TestWallet
    let requester = Requester(
        displayName: "Verifier", identifier: "x509_san_dns:v.example", authentication: .trusted(anchor: "CN=CA"))

    init() throws { wallet = try TestWallet() }

    static func claim(_ id: String?, _ element: String, ns: String = ns, retain: Bool = false) -> DCQLQuery.ClaimQuery {
        DCQLQuery.ClaimQuery(id: id, ns, element, intentToRetain: retain)
    }

    @Test func choosesTheFirstClaimSetTheCredentialCanDeliver() throws {
        // The credential has birth_date but no age_over_18.
        let credential = try wallet.issue(elements: [("birth_date", .tagged(1004, "1971-09-01")), ("family_name", "M")])
        let query = try DCQLQuery(credentials: [
            .init(
                id: "mdl", doctype: Self.mDL,
                claims: [Self.claim("age", "age_over_18"), Self.claim("dob", "birth_date", retain: true)],
                claimSets: [["age"], ["dob"]])
        ])
        let match = try DCQLMatcher.match(query, credentials: [credential], requester: requester)
        #expect(match.selections.count == 1)
        #expect(match.selections[0].elementIDs == [ElementID(Self.ns, "birth_date")])
        #expect(match.credentialsByQueryID["mdl"]?.id == credential.id)
        let document = try #require(match.consentRequest.documents.first)
        #expect(match.consentRequest.channel == .online)
        #expect(match.consentRequest.requester == requester)
        #expect(match.consentRequest.warning == nil)
        #expect(document.docType == Self.mDL)
        #expect(document.credentialID == credential.id)
        #expect(
            document.elements == [
                RequestedElement(
                    ElementID(Self.ns, "birth_date"), intentToRetain: true, available: true, required: true)
            ])

        // With both available the first (preferred) set wins.
        let both = try wallet.issue()
        let preferred = try DCQLMatcher.match(query, credentials: [both], requester: requester)
        #expect(preferred.selections[0].elementIDs == [ElementID(Self.ns, "age_over_18")])
    }

    @Test func deniesWhenNoClaimSetCanBeDelivered() throws {
        let credential = try wallet.issue(elements: [("family_name", "M")])
        let withSets = try DCQLQuery(credentials: [
            .init(
                id: "mdl", doctype: Self.mDL,
                claims: [Self.claim("age", "age_over_18"), Self.claim("dob", "birth_date")],
                claimSets: [["age"], ["dob"]])
        ])
        #expect(
            authorizationError { _ = try DCQLMatcher.match(withSets, credentials: [credential], requester: requester) }?
                .code == .accessDenied)
        // Without claim sets every claim is needed: one missing element denies.
        let all = try DCQLQuery(credentials: [
            .init(id: "mdl", doctype: Self.mDL, claims: [Self.claim(nil, "family_name"), Self.claim(nil, "portrait")])
        ])
        #expect(
            authorizationError { _ = try DCQLMatcher.match(all, credentials: [credential], requester: requester) }?.code
                == .accessDenied)
        // No credential of the doc type.
        let other = try DCQLQuery(credentials: [
            .init(id: "x", doctype: "org.example.other", claims: [Self.claim(nil, "a")])
        ])
        #expect(
            authorizationError { _ = try DCQLMatcher.match(other, credentials: [credential], requester: requester) }?
                .code
                == .accessDenied)
    }

    @Test func picksTheCredentialThatCanDeliver() throws {
        let partial = try wallet.issue(elements: [("family_name", "M")])
        let full = try wallet.issue()
        let query = try DCQLQuery(credentials: [
            .init(
                id: "mdl", doctype: Self.mDL, claims: [Self.claim(nil, "family_name"), Self.claim(nil, "age_over_21")])
        ])
        let match = try DCQLMatcher.match(query, credentials: [partial, full], requester: requester)
        #expect(match.selections[0].credential.id == full.id)
    }

    @Test func answersSeveralCredentialQueries() throws {
        let mdl = try wallet.issue()
        let card = try wallet.issue(
            docType: "org.example.loyalty", nameSpace: TestWallet.loyalty,
            elements: [("member_id", "42"), ("tier", "gold")])
        let query = try DCQLQuery(credentials: [
            .init(
                id: "mdl", doctype: Self.mDL, claims: [Self.claim(nil, "given_name"), Self.claim(nil, "family_name")]),
            .init(
                id: "card", doctype: "org.example.loyalty",
                claims: [Self.claim(nil, "member_id", ns: TestWallet.loyalty)]),
        ])
        let match = try DCQLMatcher.match(query, credentials: [card, mdl], requester: requester)
        #expect(match.selections.map(\.queryID) == ["mdl", "card"])
        #expect(match.consentRequest.documents.map(\.docType) == [Self.mDL, "org.example.loyalty"])
        #expect(match.credentialsByQueryID["card"]?.id == card.id)
        #expect(match.credentialsByQueryID["mdl"]?.id == mdl.id)
        #expect(
            match.consentRequest.documents[0].elements.map(\.id)
                == [ElementID(Self.ns, "given_name"), ElementID(Self.ns, "family_name")])
        // Without credential_sets every query is required.
        #expect(
            authorizationError { _ = try DCQLMatcher.match(query, credentials: [mdl], requester: requester) }?.code
                == .accessDenied)
    }

    @Test func satisfiesCredentialSets() throws {
        let mdl = try wallet.issue()
        let query = try DCQLQuery(
            credentials: [
                .init(id: "pid", format: "dc+sd-jwt", doctype: nil),
                .init(id: "mdl", doctype: Self.mDL, claims: [Self.claim(nil, "family_name")]),
                .init(id: "photo", doctype: "org.iso.23220.photoid.1", claims: [Self.claim(nil, "portrait")]),
                .init(id: "card", doctype: "org.example.loyalty", claims: [Self.claim(nil, "member_id")]),
            ],
            credentialSets: [
                .init(options: [["pid"], ["photo"], ["mdl"]]),
                .init(options: [["card"]], required: false),
            ])
        let match = try DCQLMatcher.match(query, credentials: [mdl], requester: requester)
        #expect(match.selections.map(\.queryID) == ["mdl"])

        // A required set that no option satisfies.
        let required = try DCQLQuery(
            credentials: query.credentials,
            credentialSets: [.init(options: [["mdl"]]), .init(options: [["photo"], ["card"]])])
        #expect(
            authorizationError { _ = try DCQLMatcher.match(required, credentials: [mdl], requester: requester) }?.code
                == .accessDenied)

        // An option needs all of its queries.
        let pair = try DCQLQuery(
            credentials: query.credentials, credentialSets: [.init(options: [["mdl", "card"], ["mdl"]])])
        #expect(
            try DCQLMatcher.match(pair, credentials: [mdl], requester: requester).selections.map(\.queryID) == ["mdl"])
    }

    @Test func appliesValueRestrictions() throws {
        let credential = try wallet.issue()
        func match(_ values: [JSONValue], _ element: String) -> AuthorizationError? {
            authorizationError {
                let query = try DCQLQuery(credentials: [
                    .init(
                        id: "mdl", doctype: Self.mDL,
                        claims: [.init(path: [.string(Self.ns), .string(element)], values: values)])
                ])
                _ = try DCQLMatcher.match(query, credentials: [credential], requester: requester)
            }
        }
        #expect(match([true], "age_over_18") == nil)
        #expect(match([false], "age_over_18")?.code == .accessDenied)
        #expect(match(["Mustermann", "Other"], "family_name") == nil)
        #expect(match(["mustermann"], "family_name")?.code == .accessDenied)
        #expect(match(["1971-09-01"], "birth_date") == nil)  // tag 1004 dropped
        #expect(match([1], "age_over_18")?.code == .accessDenied)  // a number is not a boolean
    }

    @Test func honoursTheVerifiersAlgorithms() throws {
        let p256 = try wallet.issue()
        let query = try DCQLQuery(credentials: [
            .init(id: "mdl", doctype: Self.mDL, claims: [Self.claim(nil, "family_name")])
        ])
        func metadata(issuer: [Int]? = nil, device: [Int]? = nil) -> ClientMetadata {
            ClientMetadata(mdocFormat: .init(issuerAuthAlgValues: issuer, deviceAuthAlgValues: device))
        }
        for accepted in [metadata(), metadata(issuer: [-7], device: [-7]), metadata(issuer: [-9], device: [-9, -35])] {
            _ = try DCQLMatcher.match(query, credentials: [p256], requester: requester, clientMetadata: accepted)
        }
        for refused in [metadata(device: [-35]), metadata(issuer: [-8]), metadata(device: [-65537])] {
            #expect(
                authorizationError {
                    _ = try DCQLMatcher.match(query, credentials: [p256], requester: requester, clientMetadata: refused)
                }?.code == .accessDenied)
        }
        let p384 = try wallet.issue(curve: .p384)
        _ = try DCQLMatcher.match(
            query, credentials: [p384], requester: requester, clientMetadata: metadata(device: [-51]))
    }

    @Test func refusesQueriesOfOtherFormatsOnly() throws {
        let query = try DCQLQuery(credentials: [.init(id: "vc", format: "jwt_vc_json", doctype: nil)])
        #expect(
            authorizationError {
                _ = try DCQLMatcher.match(query, credentials: [try wallet.issue()], requester: requester)
            }?
            .code == .vpFormatsNotSupported)
    }

    @Test func warnsAboutVerifiersThatAreNotTrusted() throws {
        let query = try DCQLQuery(credentials: [
            .init(id: "mdl", doctype: Self.mDL, claims: [Self.claim(nil, "family_name")])
        ])
        let anonymous = Requester(
            displayName: "Shop", identifier: "redirect_uri:https://s", authentication: .unauthenticated)
        let match = try DCQLMatcher.match(query, credentials: [try wallet.issue()], requester: anonymous)
        #expect(match.consentRequest.warning != nil)
    }

    @Test func keepsOnlyCredentialsWhoseRequiredClaimsWereApproved() throws {
        let mdl = try wallet.issue()
        let card = try wallet.issue(
            docType: "org.example.loyalty", nameSpace: TestWallet.loyalty, elements: [("member_id", "42")])
        let query = try DCQLQuery(
            credentials: [
                .init(
                    id: "mdl", doctype: Self.mDL,
                    claims: [Self.claim(nil, "family_name"), Self.claim(nil, "given_name")]),
                .init(
                    id: "card", doctype: "org.example.loyalty",
                    claims: [Self.claim(nil, "member_id", ns: TestWallet.loyalty)]),
            ],
            credentialSets: [.init(options: [["mdl"]]), .init(options: [["card"]], required: false)])
        let match = try DCQLMatcher.match(query, credentials: [mdl, card], requester: requester)
        #expect(match.selections.count == 2)

        let all = ConsentDecision.approveAll(match.consentRequest)
        #expect(try match.approvedSelections(all).map(\.selection.queryID) == ["mdl", "card"])
        // The optional card declined: the mDL alone still satisfies the query.
        let mdlOnly = ConsentDecision.approve([
            Self.mDL: [ElementID(Self.ns, "family_name"), ElementID(Self.ns, "given_name")]
        ])
        #expect(try match.approvedSelections(mdlOnly).map(\.selection.queryID) == ["mdl"])
        // A required claim of the mDL left out: the mDL cannot be returned, and it is required.
        let partial = ConsentDecision.approve([
            Self.mDL: [ElementID(Self.ns, "family_name")],
            "org.example.loyalty": [ElementID(TestWallet.loyalty, "member_id")],
        ])
        #expect(authorizationError { _ = try match.approvedSelections(partial) }?.code == .accessDenied)
        #expect(authorizationError { _ = try match.approvedSelections(.decline) }?.code == .accessDenied)
    }
}

/// A query from outside is read within fixed limits (`invalid_request` naming the member and
/// the limit), and matching stays linear in what it names times what the store holds.
@Suite struct DCQLBoundsTests {
    static func claims(_ count: Int) -> String {
        "[" + (0..<count).map { #"{"id":"c\#($0)","path":["ns","e\#($0)"]}"# }.joined(separator: ",") + "]"
    }

    static func query(credentials: Int = 1, claims: Int = 2, claimSets: Int? = nil, setSize: Int = 1) -> String {
        let sets = claimSets.map { count in
            #","claim_sets":["#
                + (0..<count).map { i in
                    "[" + (0..<setSize).map { #""c\#((i + $0) % claims)""# }.joined(separator: ",") + "]"
                }.joined(separator: ",") + "]"
        }
        let queries = (0..<credentials).map {
            #"{"id":"q\#($0)","format":"mso_mdoc","meta":{"doctype_value":"d"},"claims":\#(Self.claims(claims))\#(sets ?? "")}"#
        }
        return #"{"credentials":["# + queries.joined(separator: ",") + "]}"
    }

    static func read(_ text: String) throws -> DCQLQuery { try DCQLQuery(json: JSONValue(parsing: text)) }

    @Test func theLimitsAreTaken() throws {
        let query = try Self.read(
            Self.query(
                credentials: 2, claims: DCQLQuery.maximumClaims, claimSets: DCQLQuery.maximumClaimSets,
                setSize: DCQLQuery.maximumClaims))
        #expect(query.credentials[0].claimSets?.count == DCQLQuery.maximumClaimSets)
        #expect(try Self.read(Self.query(credentials: DCQLQuery.maximumCredentialQueries)).credentials.count == 64)
    }

    @Test(arguments: [
        (query(claims: 2, claimSets: 65), "claim_sets has 65 entries"),
        (query(claims: 2, claimSets: 5000), "claim_sets has 5000 entries"),
        (query(claims: 257), "claims has 257 entries"),
        (query(credentials: 65), "dcql_query.credentials has 65 entries"),
        (query(claims: 2, claimSets: 1, setSize: 257), "an option of claim_sets has 257 entries"),
    ])
    func tooLongListsAreRefused(_ text: String, _ message: String) throws {
        let error = authorizationError { _ = try Self.read(text) }
        #expect(error?.code == .invalidRequest)
        #expect(error?.description.hasPrefix(message) == true, "\(String(describing: error))")
    }

    @Test func tooManyValuesCredentialSetsOrPathComponentsAreRefused() throws {
        let values = "[" + (0..<65).map(String.init).joined(separator: ",") + "]"
        let manyValues = DCQLQueryTests.credential(#","claims":[{"path":["ns","el"],"values":\#(values)}]"#)
        #expect(authorizationError { _ = try Self.read(manyValues) }?.description.hasPrefix("claims values") == true)
        let sets = "[" + Array(repeating: #"{"options":[["mdl"]]}"#, count: 65).joined(separator: ",") + "]"
        let manySets =
            #"{"credentials":[{"id":"mdl","format":"mso_mdoc","meta":{"doctype_value":"d"}}],"credential_sets":\#(sets)}"#
        #expect(
            authorizationError { _ = try Self.read(manySets) }?.description.hasPrefix("dcql_query.credential_sets")
                == true)
        let path = "[" + Array(repeating: #""a""#, count: 65).joined(separator: ",") + "]"
        let longPath =
            #"{"credentials":[{"id":"p","format":"dc+sd-jwt","meta":{"vct_values":["v"]},"claims":[{"path":\#(path)}]}]}"#
        #expect(authorizationError { _ = try Self.read(longPath) }?.description.hasPrefix("a claims path") == true)
    }

    @Test func aQueryBuiltInCodeIsHeldToTheSameLimits() {
        let claims = (0..<257).map { DCQLQuery.ClaimQuery(id: "c\($0)", "ns", "e\($0)") }
        #expect(
            authorizationError { _ = try DCQLQuery(credentials: [.init(id: "q", doctype: "d", claims: claims)]) }?.code
                == .invalidRequest)
    }

    @Test func theWholeRequestIsRefusedWithInvalidRequest() throws {
        let parameters: [String: JSONValue] = [
            "client_id": "redirect_uri:https://v.example/post", "response_type": "vp_token",
            "response_mode": "direct_post", "nonce": "n",
            "dcql_query": .string(Self.query(claims: 2, claimSets: 3000)),
        ]
        #expect(authorizationError { _ = try AuthorizationRequest(parameters: parameters) }?.code == .invalidRequest)
    }

    @Test func thePreferredClaimSetIsFoundAmongTheMostTheLimitsAllow() throws {
        let wallet = try TestWallet()
        // The credential holds e0 and e1 only; of 64 claim sets over 256 claims only the last
        // one names nothing else.
        let credential = try wallet.issue(nameSpace: "ns", elements: [("e0", "a"), ("e1", "b")])
        let other = try wallet.issue(nameSpace: "ns", elements: [("e2", "c")])
        let claims = (0..<DCQLQuery.maximumClaims).map { DCQLQuery.ClaimQuery(id: "c\($0)", "ns", "e\($0)") }
        let sets =
            (0..<DCQLQuery.maximumClaimSets - 1).map { i in (0..<200).map { "c\(($0 + i) % 256)" } } + [
                ["c1", "c0", "c1"]
            ]
        let query = try DCQLQuery(credentials: [
            .init(id: "mdl", doctype: TestWallet.mDL, claims: claims, claimSets: sets)
        ])
        let match = try DCQLMatcher.match(
            query, credentials: [other, credential],
            requester: Requester(displayName: "V", identifier: "v", authentication: .unauthenticated))
        #expect(match.selections.first?.credential.id == credential.id)
        // Named twice in the set, shown once, in the set's order.
        #expect(match.selections.first?.elementIDs == [ElementID("ns", "e1"), ElementID("ns", "e0")])
    }

    @Test func clientMetadataListsAreHeldToTheLimit() throws {
        let keys = JSONValue.array(Array(repeating: ["kty": "EC"], count: 65))
        let error = authorizationError { _ = try ClientMetadata(json: ["jwks": ["keys": keys]]) }
        #expect(error?.code == .invalidRequest)
        #expect(error?.description.hasPrefix("client_metadata.jwks.keys has 65 entries") == true)
        let algs = JSONValue.array(Array(repeating: -7, count: 65))
        #expect(
            authorizationError {
                _ = try ClientMetadata(json: ["vp_formats_supported": ["mso_mdoc": ["issuerauth_alg_values": algs]]])
            }?.code == .invalidRequest)
    }

    @Test func aPresentationDefinitionIsHeldToTheSameLimits() throws {
        let fields = "[" + Array(repeating: #"{"path":["$['ns']['e']"]}"#, count: 257).joined(separator: ",") + "]"
        let definition = try JSONValue(
            parsing: #"{"id":"x","input_descriptors":[{"id":"d","constraints":{"fields":\#(fields)}}]}"#)
        #expect(authorizationError { _ = try PresentationDefinition(json: definition) }?.code == .invalidRequest)
        let long = "$" + String(repeating: "['a']", count: 100_000)
        #expect(PresentationDefinition.element(fromPath: long) == nil)
        #expect(PresentationDefinition.element(fromPath: "$['ns']['e']['x']") == nil)
        #expect(PresentationDefinition.element(fromPath: "$['ns']['e']") == ElementID("ns", "e"))
    }
}

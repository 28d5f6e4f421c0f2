import Consent
import Foundation
import JOSE
import MdocCrypto
import OpenID4VP
import Presentation
import SDJWT
import SDJWTPresentable
import Testing

/// DCQL queries for dc+sd-jwt: matched by vct and claims path, shown to consent as paths, and
/// answered with exactly the approved claims and a Key Binding JWT for this request.
struct SDJWTPresentationTests {
    let holderKey: PrivateKey
    let pid: PresentableSDJWT
    let requester = Requester(
        displayName: "Verifier", identifier: TestVerifier.clientID, authentication: .trusted(anchor: "CN=CA"))

    init() throws {
        holderKey = try PrivateKey.generate(.p256)
        let claims: [String: JSONValue] = [
            "iss": "https://pid-issuer.example", "vct": "urn:eudi:pid:1", "iat": 1_700_000_000,
            "cnf": ["jwk": try JWK(publicKey: holderKey.publicKey).json()],
            "given_name": "Erika", "birthdate": "1964-08-12",
            "address": ["locality": "Köln", "street_address": "Heidestraße 17", "country": "DE"],
            "nationalities": ["DE", "FR"],
        ]
        let compact = try SDJWTIssuance(
            claims: claims,
            selectivelyDisclosable: [
                ClaimPath(names: "given_name"), ClaimPath(names: "birthdate"), ClaimPath(names: "address"),
                ClaimPath(names: "address", "locality"), ClaimPath(names: "address", "street_address"),
                ClaimPath([.name("nationalities"), .index(0)]), ClaimPath([.name("nationalities"), .index(1)]),
            ]
        ).issue(key: try PrivateKey.generate(.p256))
        pid = PresentableSDJWT(id: "pid-1", credential: try SDJWTVC(issued: compact), key: holderKey)
    }

    static func query(_ paths: [[JSONValue]], vct: String = "urn:eudi:pid:1", values: [JSONValue]? = nil) -> JSONValue {
        [
            "credentials": [
                [
                    "id": "pid", "format": "dc+sd-jwt", "meta": ["vct_values": [.string(vct)]],
                    "claims": .array(
                        paths.map { path in
                            var claim: [String: JSONValue] = ["path": .array(path)]
                            if let values { claim["values"] = .array(values) }
                            return .object(claim)
                        }),
                ]
            ]
        ]
    }

    private func match(_ dcql: JSONValue) throws -> (AuthorizationRequest, DCQLMatch) {
        let request = try AuthorizationRequest(parameters: TestVerifier.payload(dcql: dcql))
        return (request, try DCQLMatcher.match(request.dcqlQuery, credentials: [], sdJWTs: [pid], requester: requester))
    }

    @Test func matchesByVctAndShowsClaimPathsToConsent() throws {
        let (_, match) = try match(Self.query([["given_name"], ["address", "locality"], ["nationalities", nil]]))
        #expect(match.selections.map(\.credential.id) == ["pid-1"])
        let document = try #require(match.consentRequest.documents.first)
        #expect(document.docType == "urn:eudi:pid:1")
        #expect(document.elements.map(\.id.description) == ["given_name", "address.locality", "nationalities[*]"])
        #expect(document.elements.allSatisfy { $0.required && $0.available })
    }

    @Test func anotherVctAMissingClaimOrAnotherValueMatchesNothing() throws {
        for dcql in [
            Self.query([["given_name"]], vct: "urn:other"), Self.query([["nickname"]]),
            Self.query([["address", "locality"]], values: ["Berlin"]),
        ] {
            #expect(authorizationError { _ = try match(dcql) }?.code == .accessDenied)
        }
        _ = try match(Self.query([["address", "locality"]], values: ["Berlin", "Köln"]))
    }

    /// The vp_token carries the SD-JWT with the approved claims' Disclosures (and their
    /// parents') and a KB-JWT whose aud is the full client_id and nonce the request's.
    @Test func answersWithTheApprovedClaimsAndAKeyBindingJWT() throws {
        let (request, match) = try match(Self.query([["given_name"], ["address", "locality"]]))
        let decision = ConsentDecision.approveAll(match.consentRequest)
        let (body, records) = try ResponseParameters(request: request).successResponse(for: match, decision: decision)
        let token = try JSONValue(parsing: try #require(body["vp_token"]))
        let presented = try SDJWT(compact: try #require(token["pid"]?.arrayValue?.first?.stringValue))
        try KeyBindingJWT.verify(presented, audience: TestVerifier.clientID, nonce: request.nonce)
        let seen = try presented.processed().claims
        #expect(seen["given_name"] == "Erika")
        #expect(seen["address"] == ["locality": "Köln", "country": "DE"])
        #expect(seen["birthdate"] == nil)
        #expect(seen["nationalities"] == [])
        #expect(records.map(\.docType) == ["urn:eudi:pid:1"])
        // The store marks the copy this presentation used by the credential's ID.
        #expect(records.map(\.credentialID) == ["pid-1"])
        #expect(records.first?.elementsSent.map(\.description) == ["given_name", "address.locality"])
    }

    @Test func aDeclinedOrPartlyApprovedRequestIsAccessDenied() throws {
        let (request, match) = try match(Self.query([["given_name"], ["birthdate"]]))
        let parameters = try ResponseParameters(request: request)
        #expect(
            authorizationError { _ = try parameters.successResponse(for: match, decision: .decline) }?.code
                == .accessDenied)
        let partial = ConsentDecision.approve(["urn:eudi:pid:1": [ElementID(claimPath: "given_name")]])
        #expect(
            authorizationError { _ = try parameters.successResponse(for: match, decision: partial) }?.code
                == .accessDenied)
    }

    @Test func aDCQLQueryForSDJWTNeedsVctValuesAndPathsOfNamesIndicesAndNull() {
        let noVCT: JSONValue = ["credentials": [["id": "pid", "format": "dc+sd-jwt", "meta": [:]]]]
        let badPath = Self.query([["address", true]])
        for dcql in [noVCT, badPath] {
            #expect(authorizationError { _ = try DCQLQuery(json: dcql) }?.code == .invalidRequest)
        }
    }
}

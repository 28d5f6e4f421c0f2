import JOSE
import Testing

@testable import OpenID4VP

@Suite struct AuthorizationRequestURLTests {
    static let dcql =
        #"{"credentials":[{"id":"mdl","format":"mso_mdoc","meta":{"doctype_value":"org.iso.18013.5.1.mDL"},"claims":[{"path":["org.iso.18013.5.1","age_over_18"]}]}]}"#
    static let metadata =
        #"{"client_name":"Shop","vp_formats_supported":{"mso_mdoc":{"deviceauth_alg_values":[-7,-9]}}}"#

    static func byValue(scheme: String = "openid4vp://", extra: String = "") -> String {
        "\(scheme)?client_id=\(q("redirect_uri:https://shop.example/post"))&response_type=vp_token"
            + "&response_mode=direct_post&response_uri=\(q("https://shop.example/post"))&nonce=abc-123&state=s1"
            + "&dcql_query=\(q(dcql))&client_metadata=\(q(metadata))" + extra
    }

    @Test func parsesARequestByValue() throws {
        guard case .byValue(let request) = try AuthorizationRequestURL(Self.byValue()) else {
            Issue.record("not by value")
            return
        }
        #expect(request.clientID.raw == "redirect_uri:https://shop.example/post")
        #expect(request.clientID.prefix == .redirectURI)
        #expect(request.clientID.value == "https://shop.example/post")
        #expect(request.responseType == "vp_token")
        #expect(request.responseMode == .directPost)
        #expect(request.responseURI == "https://shop.example/post")
        #expect(request.nonce == "abc-123")
        #expect(request.state == "s1")
        #expect(!request.isPreFinal)
        #expect(request.dcqlQuery.credentials.map(\.id) == ["mdl"])
        #expect(request.dcqlQuery.credentials[0].doctype == "org.iso.18013.5.1.mDL")
        #expect(request.clientMetadata?.clientName == "Shop")
        #expect(request.clientMetadata?.mdocFormat?.deviceAuthAlgValues == [-7, -9])
        #expect(request.clientMetadata?.encryptedResponseEncValues == ["A128GCM"])
    }

    @Test(arguments: [
        "openid4vp://", "openid4vp:", "haip-vp://", "mdoc-openid4vp://", "https://wallet.example/authorize",
    ])
    func acceptsEachScheme(_ scheme: String) throws {
        guard case .byValue = try AuthorizationRequestURL(Self.byValue(scheme: scheme)) else {
            Issue.record("not by value")
            return
        }
        let byReference =
            "\(scheme)?client_id=\(q("x509_san_dns:verifier.example.com"))"
            + "&request_uri=\(q("https://verifier.example.com/request/abc"))&request_uri_method=post"
        guard case .byReference(let uri, let method, let clientID) = try AuthorizationRequestURL(byReference) else {
            Issue.record("not by reference")
            return
        }
        #expect(uri == "https://verifier.example.com/request/abc")
        #expect(method == .post)
        #expect(clientID == "x509_san_dns:verifier.example.com")
    }

    @Test func requestURIMethodDefaultsToGet() throws {
        let url = "openid4vp://?client_id=c&request_uri=\(q("https://v.example/r"))"
        guard case .byReference(_, let method, _) = try AuthorizationRequestURL(url) else {
            Issue.record("not by reference")
            return
        }
        #expect(method == .get)
        let get = "openid4vp://?client_id=c&request_uri=\(q("https://v.example/r"))&request_uri_method=get"
        guard case .byReference(_, .get, _) = try AuthorizationRequestURL(get) else {
            Issue.record("not get")
            return
        }
    }

    @Test(arguments: ["put", "POST", "Get", ""])
    func refusesAnInvalidRequestURIMethod(_ method: String) {
        let url = "openid4vp://?client_id=c&request_uri=\(q("https://v.example/r"))&request_uri_method=\(method)"
        let error = authorizationError { _ = try AuthorizationRequestURL(url) }
        #expect(error?.code == .invalidRequestURIMethod)
    }

    @Test func readsARequestObjectByValue() throws {
        let url = "haip-vp://?client_id=\(q("x509_hash:abc"))&request=eyJ0.eyJ1.c2ln&nonce=ignored"
        guard case .requestObject(let jwt, let clientID) = try AuthorizationRequestURL(url) else {
            Issue.record("not a request object")
            return
        }
        #expect(jwt == "eyJ0.eyJ1.c2ln")
        #expect(clientID == "x509_hash:abc")
    }

    @Test func flagsAPresentationDefinitionRequest() throws {
        let definition =
            #"{"id":"pd1","input_descriptors":[{"id":"org.iso.18013.5.1.mDL","format":{"mso_mdoc":{"alg":["ES256"]}},"constraints":{"limit_disclosure":"required","fields":[{"path":["$['org.iso.18013.5.1']['family_name']"],"intent_to_retain":false},{"path":["$['org.iso.18013.5.1']['portrait']"],"optional":true}]}}]}"#
        let url =
            "mdoc-openid4vp://?client_id=example.com&client_id_scheme=x509_san_dns&response_type=vp_token"
            + "&response_mode=direct_post.jwt&response_uri=\(q("https://example.com/12345/response"))"
            + "&nonce=abcdefgh1234567890&presentation_definition=\(q(definition))"
        guard case .byValue(let request) = try AuthorizationRequestURL(url) else {
            Issue.record("not by value")
            return
        }
        #expect(request.isPreFinal)
        #expect(request.clientID.raw == "example.com")
        #expect(request.clientID.prefix == .x509SanDNS)
        let query = request.dcqlQuery.credentials[0]
        #expect(query.id == "org.iso.18013.5.1.mDL")
        #expect(query.doctype == "org.iso.18013.5.1.mDL")
        #expect(query.claims?.compactMap(\.element).map(\.identifier) == ["family_name", "portrait"])
        #expect(query.claimSets == [["f0", "f1"], ["f0"]])
        // The 18013-7 flow needs an encrypted response.
        let plain = url.replacingOccurrences(of: "direct_post.jwt", with: "direct_post")
        #expect(authorizationError { _ = try AuthorizationRequestURL(plain) }?.code == .invalidRequest)
    }

    @Test(arguments: [
        ("ftp://?client_id=c", AuthorizationError.Code.invalidRequest),
        ("openid4vp://", .invalidRequest),
        ("openid4vp://?request_uri=\(q("https://v.example/r"))", .invalidRequest),
        ("openid4vp://?client_id=c&request=a.b.c&request_uri=\(q("https://v.example/r"))", .invalidRequest),
        ("openid4vp://?client_id=c&request_uri=\(q("http://v.example/r"))", .invalidRequest),
        ("openid4vp://?client_id=c&request=a.b.c&request_uri_method=post", .invalidRequest),
        ("openid4vp://?client_id=c&client_id=d&request=a.b.c", .invalidRequest),
        ("openid4vp://?client_id=%ZZ&request=a.b.c", .invalidRequest),
    ])
    func refusesMalformedURLs(_ url: String, _ code: AuthorizationError.Code) {
        #expect(authorizationError { _ = try AuthorizationRequestURL(url) }?.code == code)
    }

    @Test(arguments: [
        ("&response_type=code", AuthorizationError.Code.invalidRequest),  // repeated
        ("&redirect_uri=\(q("https://shop.example/cb"))", .invalidRequest),
        ("&transaction_data=eyJ0eXBlIjoieCJ9", .invalidTransactionData),
        ("&scope=openid", .invalidRequest),
        ("&presentation_definition=%7B%7D", .invalidRequest),
    ])
    func refusesForbiddenParameters(_ extra: String, _ code: AuthorizationError.Code) {
        #expect(authorizationError { _ = try AuthorizationRequestURL(Self.byValue(extra: extra)) }?.code == code)
    }

    @Test func mapsParameterErrorsToTheirCodes() {
        func parse(_ parameters: [String: String]) -> AuthorizationError? {
            var base: [String: String] = [
                "client_id": "redirect_uri:https://shop.example/post", "response_type": "vp_token",
                "response_mode": "direct_post", "response_uri": "https://shop.example/post", "nonce": "n",
                "dcql_query": Self.dcql,
            ]
            for (key, value) in parameters { base[key] = value }
            return authorizationError { _ = try AuthorizationRequestURL(parameters: base.filter { !$0.value.isEmpty }) }
        }
        #expect(parse([:]) == nil)
        #expect(parse(["response_type": "code"])?.code == .unsupportedResponseType)
        #expect(parse(["response_mode": "fragment"])?.code == .invalidRequest)
        #expect(parse(["response_mode": ""])?.code == .invalidRequest)
        #expect(parse(["nonce": ""])?.code == .invalidRequest)
        #expect(parse(["response_uri": "http://shop.example/post"])?.code == .invalidRequest)
        // redirect_uri: verifiers may leave response_uri out; others may not.
        #expect(parse(["response_uri": ""]) == nil)
        #expect(parse(["response_uri": "", "client_id": "x509_san_dns:shop.example"])?.code == .invalidRequest)
        #expect(parse(["dcql_query": "", "scope": "com.example.mdl"])?.code == .invalidScope)
        #expect(parse(["dcql_query": ""])?.code == .invalidRequest)
        #expect(parse(["dcql_query": "{not json"])?.code == .invalidRequest)
        let jwtVCOnly = #"{"credentials":[{"id":"vc","format":"jwt_vc_json","meta":{"type_values":[["x"]]}}]}"#
        #expect(parse(["dcql_query": jwtVCOnly])?.code == .vpFormatsNotSupported)
        let neither = #"{"vp_formats_supported":{"jwt_vc_json":{}}}"#
        #expect(parse(["client_metadata": neither])?.code == .vpFormatsNotSupported)
        let sdJWTOnly = #"{"credentials":[{"id":"pid","format":"dc+sd-jwt","meta":{"vct_values":["x"]}}]}"#
        #expect(parse(["dcql_query": sdJWTOnly]) == nil)
        #expect(
            parse(["dcql_query": sdJWTOnly, "client_metadata": #"{"vp_formats_supported":{"dc+sd-jwt":{}}}"#]) == nil)
        let noVCT = #"{"credentials":[{"id":"pid","format":"dc+sd-jwt","meta":{}}]}"#
        #expect(parse(["dcql_query": noVCT])?.code == .invalidRequest)
        #expect(parse(["client_metadata": "[]"])?.code == .invalidRequest)
    }

    @Test func errorDescriptionsCarryNoRequestValues() {
        let error = authorizationError {
            _ = try AuthorizationRequestURL(
                "openid4vp://?client_id=secret-client&secret-name=1&secret-name=2&request=x")
        }
        #expect(error?.description.contains("secret") == false)
    }

    @Test(arguments: [
        ("redirect_uri:https://a.example/cb", ClientIdentifier.Prefix.redirectURI, "https://a.example/cb"),
        ("x509_san_dns:a.example", .x509SanDNS, "a.example"),
        (
            "x509_hash:Uvo3HtuIxuhC92rShpgqcT3YXwrqRxWEviRiA0OZszk", .x509Hash,
            "Uvo3HtuIxuhC92rShpgqcT3YXwrqRxWEviRiA0OZszk"
        ),
        ("decentralized_identifier:did:key:z6Mk", .decentralizedIdentifier, "did:key:z6Mk"),
        ("verifier_attestation:v.example", .verifierAttestation, "v.example"),
        ("openid_federation:https://f.example", .openIDFederation, "https://f.example"),
        ("origin:https://o.example", .origin, "https://o.example"),
        ("example-client", .preRegistered, "example-client"),
        ("https://client.example/cb", .preRegistered, "https://client.example/cb"),
        ("pre-registered:x", .preRegistered, "pre-registered:x"),
    ])
    func splitsClientIdentifierPrefixes(_ raw: String, _ prefix: ClientIdentifier.Prefix, _ value: String) {
        let id = ClientIdentifier(raw)
        #expect(id.prefix == prefix)
        #expect(id.value == value)
        #expect(id.raw == raw)
    }
}

import Foundation
import JOSE
import Testing

@testable import OpenID4VCI

@Suite struct CredentialOfferTests {
    static let offerJSON =
        #"{"credential_issuer":"https://issuer.example","credential_configuration_ids":["mdl"],"grants":{"urn:ietf:params:oauth:grant-type:pre-authorized_code":{"pre-authorized_code":"SplxlOBeZQQYbYS6WxSbIA","tx_code":{"length":4,"input_mode":"numeric","description":"Sent by e-mail"}}}}"#

    static func q(_ s: String) -> String { s.addingPercentEncoding(withAllowedCharacters: .alphanumerics)! }

    @Test func readsAnOfferByValueWithATransactionCode() throws {
        guard
            case .byValue(let offer) = try CredentialOfferURL(
                "openid-credential-offer://?credential_offer=\(Self.q(Self.offerJSON))")
        else {
            Issue.record("not by value")
            return
        }
        #expect(offer.credentialIssuer == "https://issuer.example")
        #expect(offer.credentialConfigurationIDs == ["mdl"])
        #expect(offer.preAuthorizedCode?.preAuthorizedCode == "SplxlOBeZQQYbYS6WxSbIA")
        #expect(
            offer.preAuthorizedCode?.transactionCode
                == TransactionCodeDescription(length: 4, description: "Sent by e-mail"))
        #expect(offer.authorizationCode == nil)
    }

    @Test func readsAnOfferByReferenceUnderAnHTTPSURL() throws {
        let url = "https://wallet.example/offer?credential_offer_uri=\(Self.q("https://issuer.example/offers/1"))"
        #expect(try CredentialOfferURL(url) == .byReference("https://issuer.example/offers/1"))
    }

    @Test func refusesAnOfferURIThatIsNotHTTPS() {
        #expect(throws: IssuanceError.invalidOffer("credential_offer_uri must be an https URL")) {
            try CredentialOfferURL(
                "openid-credential-offer://?credential_offer_uri=\(Self.q("http://issuer.example/o"))")
        }
    }

    @Test func refusesBothOrNeitherParameter() {
        #expect(throws: IssuanceError.self) {
            try CredentialOfferURL(
                "openid-credential-offer://?credential_offer=%7B%7D&credential_offer_uri=\(Self.q("https://i.example/o"))"
            )
        }
        #expect(throws: IssuanceError.invalidOffer("the URL has no credential_offer or credential_offer_uri parameter"))
        {
            try CredentialOfferURL("openid-credential-offer://?foo=bar")
        }
    }

    @Test func refusesARepeatedParameter() {
        let uri = Self.q("https://i.example/o")
        #expect(throws: IssuanceError.invalidOffer("credential_offer_uri appears more than once")) {
            try CredentialOfferURL("openid-credential-offer://?credential_offer_uri=\(uri)&credential_offer_uri=\(uri)")
        }
    }

    @Test func refusesAnIssuerThatIsNotAnHTTPSURLWithoutQuery() {
        for issuer in ["http://issuer.example", "https://issuer.example?x=1", "issuer.example"] {
            let json = #"{"credential_issuer":"\#(issuer)","credential_configuration_ids":["a"]}"#
            #expect(
                throws: IssuanceError.invalidOffer("credential_issuer must be an https URL without query or fragment")
            ) {
                try CredentialOffer(jsonText: json)
            }
        }
    }

    @Test func refusesAnOfferWithoutConfigurations() {
        #expect(throws: IssuanceError.invalidOffer("credential_configuration_ids is missing or empty")) {
            try CredentialOffer(
                jsonText: #"{"credential_issuer":"https://i.example","credential_configuration_ids":[]}"#)
        }
    }

    @Test func readsTheAuthorizationCodeGrant() throws {
        let offer = try CredentialOffer(
            jsonText:
                #"{"credential_issuer":"https://i.example","credential_configuration_ids":["a"],"grants":{"authorization_code":{"issuer_state":"xyz","authorization_server":"https://as.example"}}}"#
        )
        #expect(
            offer.authorizationCode
                == AuthorizationCodeGrant(issuerState: "xyz", authorizationServer: "https://as.example"))
        #expect(offer.preAuthorizedCode == nil)
    }

    @Test func checksATransactionCodeAgainstItsDescription() throws {
        let description = TransactionCodeDescription(inputMode: .numeric, length: 4)
        try description.check("1234")
        #expect(throws: IssuanceError.invalidTransactionCode("must be digits only")) { try description.check("12a4") }
        #expect(throws: IssuanceError.invalidTransactionCode("must be 4 characters long, not 3")) {
            try description.check("123")
        }
        try TransactionCodeDescription(inputMode: .text).check("abc-9")
    }

    @Test func aTransactionCodeErrorNeverQuotesTheCode() {
        do {
            try TransactionCodeDescription(inputMode: .numeric, length: 6).check("98765x")
        } catch {
            #expect(!error.description.contains("98765"))
        }
    }
}

/// What an offer from outside may cost: repeated ids are dropped in one pass, too many are
/// refused before anything else is read.
@Suite struct CredentialOfferBoundsTests {
    static func offer(ids: [String]) -> String {
        let list = ids.map { "\"\($0)\"" }.joined(separator: ",")
        return #"{"credential_issuer":"https://issuer.example","credential_configuration_ids":["# + list + "]}"
    }

    @Test func repeatedIDsAreDroppedAndTheDistinctOnesKeepTheirOrder() throws {
        let offer = try CredentialOffer(jsonText: Self.offer(ids: ["b", "a", "b", "c", "a", "b"]))
        #expect(offer.credentialConfigurationIDs == ["b", "a", "c"])
    }

    @Test func theLimitIsTakenAndOneMoreIsRefusedNamingTheCountAndTheLimit() throws {
        let limit = CredentialOffer.maximumConfigurationIDs
        let ids = (0..<limit).map { "id\($0)" }
        #expect(try CredentialOffer(jsonText: Self.offer(ids: ids)).credentialConfigurationIDs == ids)
        let error = #expect(throws: IssuanceError.self) {
            try CredentialOffer(jsonText: Self.offer(ids: ids + ["one-more"]))
        }
        guard case .invalidOffer(let why)? = error else {
            Issue.record("expected invalidOffer, got \(String(describing: error))")
            return
        }
        #expect(why.contains("\(limit + 1) configurations"))
        #expect(why.contains("more than the \(limit)"))
        #expect(!why.contains("one-more"), "the message quotes no id")
    }

    @Test func anOfferOf150000IDsIsRefusedAsTooMany() throws {
        let error = #expect(throws: IssuanceError.self) {
            try CredentialOffer(jsonText: Self.offer(ids: (0..<150_000).map { "c\($0)" }))
        }
        #expect(error?.description.contains("150000 configurations") == true)
    }

    @Test func repeatsCountTowardsTheLimit() {
        #expect(throws: IssuanceError.self) {
            try CredentialOffer(jsonText: Self.offer(ids: Array(repeating: "mdl", count: 1000)))
        }
    }
}

import Consent
import ConsentPolicy
import Testing

@testable import OpenID4VCI

@Suite struct IssuanceConsentTests {
    static var metadata: CredentialIssuerMetadata {
        get throws {
            try CredentialIssuerMetadata(body: Array(MetadataTests.issuer.utf8), issuer: "https://issuer.example")
        }
    }

    @Test func showsTheIssuerItsHostAndTheClaimsWithTheirNames() throws {
        let metadata = try Self.metadata
        let mdl = try #require(metadata.configurations["mdl"])
        let request = IssuanceConsent.request(
            issuer: metadata, configurations: [mdl], tlsHost: "issuer.example", copies: 3)
        #expect(request.channel == .issuance)
        #expect(request.requester.displayName == "Example DMV")
        #expect(request.requester.identifier == "https://issuer.example")
        #expect(request.requester.authentication.summary.contains("issuer.example"))
        #expect(request.warning?.contains("3 copies") == true)
        let document = try #require(request.documents.first)
        #expect(document.docType == "org.iso.18013.5.1.mDL")
        #expect(document.displayName == "Driving licence")
        #expect(
            document.elements.map(\.id.description) == [
                "org.iso.18013.5.1:family_name", "org.iso.18013.5.1:age_over_18",
            ])
        #expect(document.elements.map(\.displayName) == ["Family name", nil])
    }

    @Test func anSDJWTVCIsShownByItsVctWithClaimPathsAsPresentationShowsThem() throws {
        let pid = CredentialConfiguration(
            id: "pid", format: "dc+sd-jwt", docType: nil, vct: "urn:eudi:pid:1", displayName: "PID",
            claims: [
                ClaimDescription(path: ["given_name"], displayName: "Given name"),
                ClaimDescription(path: ["address", "locality"], displayName: "Town"),
            ])
        let request = IssuanceConsent.request(
            issuer: try Self.metadata, configurations: [pid], tlsHost: "issuer.example", copies: 1)
        let document = try #require(request.documents.first)
        #expect(document.docType == "urn:eudi:pid:1" && document.displayName == "PID")
        #expect(document.elements.map(\.id) == [ElementID("", "given_name"), ElementID("", "address.locality")])
        #expect(document.elements.map(\.displayName) == ["Given name", "Town"])
        #expect(IssuanceConsent.accepts(.approveAll(request), configuration: pid))
        let byVct = try PolicyConsent(
            text: "[[rule]]\nissuer = \"https://issuer.example\"\ndoctype = \"urn:eudi:pid:1\"\n",
            baseDirectory: .init(fileURLWithPath: "/"))
        #expect(IssuanceConsent.accepts(byVct.decideNow(request), configuration: pid))
    }

    @Test func acceptingAllAcceptsTheConfigurationAndDecliningDoesNot() throws {
        let metadata = try Self.metadata
        let mdl = try #require(metadata.configurations["mdl"])
        let request = IssuanceConsent.request(issuer: metadata, configurations: [mdl], tlsHost: "h", copies: 1)
        #expect(IssuanceConsent.accepts(.approveAll(request), configuration: mdl))
        #expect(!IssuanceConsent.accepts(.decline, configuration: mdl))
    }

    @Test func aPolicyAcceptsOffersOnlyByIssuerRules() throws {
        let metadata = try Self.metadata
        let mdl = try #require(metadata.configurations["mdl"])
        let request = IssuanceConsent.request(issuer: metadata, configurations: [mdl], tlsHost: "h", copies: 1)
        let readerOnly = try PolicyConsent(
            text: "[[rule]]\nreader = \"any\"\ndoctype = \"*\"\nallow = [\"*\"]\n",
            baseDirectory: .init(fileURLWithPath: "/"))
        #expect(readerOnly.decideNow(request) == .decline)
        let thisIssuer = try PolicyConsent(
            text: "[[rule]]\nissuer = \"https://issuer.example/\"\ndoctype = \"org.iso.18013.5.1.mDL\"\n",
            baseDirectory: .init(fileURLWithPath: "/"))
        #expect(IssuanceConsent.accepts(thisIssuer.decideNow(request), configuration: mdl))
        let otherIssuer = try PolicyConsent(
            text: "[[rule]]\nissuer = \"https://other.example\"\ndoctype = \"*\"\n",
            baseDirectory: .init(fileURLWithPath: "/"))
        #expect(otherIssuer.decideNow(request) == .decline)
    }
}

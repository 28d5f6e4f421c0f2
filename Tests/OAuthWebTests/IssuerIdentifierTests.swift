import OAuthWeb
import Testing

/// Credential Issuer Identifiers and authorization server issuers: what is one, how two
/// compare, where their well-known metadata is.
@Suite struct IssuerIdentifierTests {
    @Test func onlyHTTPSURLsWithAHostAndNoQueryOrFragmentAreIdentifiers() {
        #expect(IssuerIdentifier.isValid("https://issuer.example"))
        #expect(IssuerIdentifier.isValid("https://issuer.example:8443/tenant"))
        #expect(!IssuerIdentifier.isValid("http://issuer.example"))
        #expect(!IssuerIdentifier.isValid("https://issuer.example/?a=1"))
        #expect(!IssuerIdentifier.isValid("https://issuer.example/#top"))
        #expect(!IssuerIdentifier.isValid("https:///path"))
        #expect(!IssuerIdentifier.isValid("not a url"))
    }

    @Test func identifiersCompareAsStringsATrailingSlashAside() {
        #expect(IssuerIdentifier.same("https://issuer.example/", "https://issuer.example"))
        #expect(IssuerIdentifier.same("https://issuer.example/t1//", "https://issuer.example/t1"))
        #expect(!IssuerIdentifier.same("https://issuer.example/t1", "https://issuer.example/t2"))
        #expect(!IssuerIdentifier.same("https://Issuer.example", "https://issuer.example"))
    }

    @Test func theHostShowsItsPortUnlessThereIsNone() {
        #expect(IssuerIdentifier.host("https://issuer.example/t1") == "issuer.example")
        #expect(IssuerIdentifier.host("https://issuer.example:8443") == "issuer.example:8443")
        #expect(IssuerIdentifier.host("urn:no-host") == nil)
    }

    @Test func buildsWellKnownURLsBetweenHostAndPath() {
        #expect(
            IssuerIdentifier.wellKnown("https://issuer.example", suffix: "openid-credential-issuer")
                == "https://issuer.example/.well-known/openid-credential-issuer")
        #expect(
            IssuerIdentifier.wellKnown("https://issuer.example:8443/tenant/", suffix: "oauth-authorization-server")
                == "https://issuer.example:8443/.well-known/oauth-authorization-server/tenant")
        #expect(
            IssuerIdentifier.openIDConfiguration("https://as.example/t1/")
                == "https://as.example/t1/.well-known/openid-configuration")
    }
}

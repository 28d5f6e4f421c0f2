import Testing
@testable import OnlineTransport

/// What the browser shows after the authorization redirect reaches the holder.
@Suite struct LoopbackRedirectPageTests {
    @Test func aCodeRedirectIsDoneAnErrorRedirectIsNot() {
        let done = "Done: you can close this window and return to mdoc-holder.\n"
        let failed = "The authorization did not succeed: mdoc-holder says why. You can close this window.\n"
        #expect(LoopbackRedirectListener.page("/callback?code=c&state=s") == done)
        #expect(LoopbackRedirectListener.page("/callback?code=c&state=s&x_error=1") == done)
        #expect(LoopbackRedirectListener.page("/callback") == done)
        #expect(LoopbackRedirectListener.page("/callback?error=access_denied&state=s") == failed)
        #expect(LoopbackRedirectListener.page("/callback?state=s&error=server_error&error_description=x") == failed)
    }
}

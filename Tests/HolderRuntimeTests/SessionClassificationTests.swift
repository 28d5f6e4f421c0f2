import HolderRuntime
import Testing

/// The one classification, and the renderings the adapters make of it.
struct SessionClassificationTests {
    @Test func theEndedReasonsAreTheServicesWords() {
        let reasons = [
            SessionClassification.completed, .pending, .declined, .timeout, .readerEnded, .disconnected,
            .failed("a\nb"),
        ].map(\.reason)
        #expect(
            reasons == ["completed", "pending", "declined", "timeout", "reader-ended", "disconnected", "error: a\\nb"])
    }

    @Test func presentExitsZeroForAReleaseTwoForNothingReleasedOneOtherwise() {
        #expect(SessionClassification.completed.presentExitStatus == 0)
        #expect(SessionClassification.declined.presentExitStatus == 2)
        for failure in [SessionClassification.timeout, .readerEnded, .disconnected, .failed("x")] {
            #expect(failure.presentExitStatus == 1)
        }
    }

    @Test func onlineFlowsExitZeroWhenSentStoredOrPending() {
        #expect(SessionClassification.completed.onlineExitStatus == 0)
        #expect(SessionClassification.pending.onlineExitStatus == 0)
        #expect(SessionClassification.declined.onlineExitStatus == 1)
        #expect(SessionClassification.failed("refused: invalid_request").onlineExitStatus == 1)
    }

    @Test func anAgentsTimeoutGivesTheEngineFiveSecondsMore() {
        #expect(HolderSettings().engineConfiguration.consentTimeout == .seconds(60))
        let agent = HolderSettings(deviceAuth: .mac, agentTimeout: .seconds(20))
        #expect(agent.engineConfiguration.consentTimeout == .seconds(25))
        #expect(agent.engineConfiguration.deviceAuth == .mac)
    }

    @Test func theLinesAreRenderedWithEachAdaptersPrefix() {
        let line = HolderLogLine(.info, "declined org.iso.18013.5.1.mDL for Reader")
        #expect(line.consoleText == "session: declined org.iso.18013.5.1.mDL for Reader")
        #expect(line.serviceText(session: 7) == "session 7: declined org.iso.18013.5.1.mDL for Reader")
        #expect(HolderLogLine(.warning, "not presented: x").consoleText == "mdoc-holder: not presented: x")
    }
}

import ConsentPolicy
import Foundation
import HolderRuntime
import Testing

@testable import HolderService

/// The holder the service builds from its configuration: the settings `serve` was given
/// (the same fields `present` fills), the agent's timeout, the browser flow only with an agent.
struct ServiceConfigurationTests {
    @Test func theAgentsTimeoutAndTheSettingsReachTheEngine() {
        let configuration = ServiceConfiguration(
            storePath: "/nonexistent", consent: .agent(timeout: .seconds(20)),
            settings: HolderSettings(untrustedReaders: .refuse, deviceAuth: .mac))
        let engine = configuration.holderSettings.engineConfiguration
        #expect(engine.consentTimeout == .seconds(25))
        #expect(engine.deviceAuth == .mac)
        #expect(engine.untrustedReaders == .refuse)
        #expect(configuration.holderSettings.authorizationCodeFlow)
    }

    @Test func aPolicyFileKeepsTheEnginesOwnConsentTimeout() throws {
        let policy = try PolicyConsent(text: "", baseDirectory: URL(fileURLWithPath: "/"))
        let configuration = ServiceConfiguration(
            storePath: "/nonexistent", consent: .policy(policy, path: "/etc/kiosk.toml"))
        #expect(configuration.holderSettings.agentTimeout == nil)
        #expect(!configuration.holderSettings.authorizationCodeFlow)
        #expect(configuration.holderSettings.engineConfiguration.consentTimeout == .seconds(60))
    }
}

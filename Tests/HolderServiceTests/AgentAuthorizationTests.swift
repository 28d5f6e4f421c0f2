import DBus
import Foundation
import Testing

@testable import HolderService

/// `ConsentAgent1.OpenAuthorization`: the agent asked to open an authorization URL, over real
/// D-Bus messages on a private dbus-daemon (the service on one connection, the agent on another).
struct AgentAuthorizationTests {
    static let url = "https://issuer.example/authorize?client_id=mdoc-holder&request_uri=urn:x"

    @Test func withoutAnAgentNothingIsOpenedAndTheReasonSaysSo() async throws {
        try await AgentTransactionCodeTests.withPrompt { _, _, prompt, _ in
            #expect(
                await prompt.openAuthorization(url: Self.url)
                    == "no consent agent is registered to open it (org.mdocholder.AgentManager1.RegisterAgent)")
        }
    }

    @Test func theAgentGetsTheSessionAndTheURLWhichIsNotLogged() async throws {
        try await AgentTransactionCodeTests.withPrompt { bus, registry, prompt, lines in
            let agent = try await TestAgent(address: bus.address, behaviour: .approve([]), code: .reply([]))
            try await registry.register(owner: await agent.uniqueName, path: TestAgent.path)
            #expect(await prompt.openAuthorization(url: Self.url) == nil)
            #expect(agent.opened.map(\.0) == [7] && agent.opened.map(\.1) == [Self.url])
            #expect(lines.all.contains("to open the authorization URL") && !lines.all.contains("request_uri"))
            await agent.connection.close()
        }
    }

    @Test func anAgentErrorOrNoAnswerIsAReasonAndAnAnswerTooLateCancelsTheAgent() async throws {
        try await AgentTransactionCodeTests.withPrompt(timeout: .milliseconds(600)) { bus, registry, prompt, _ in
            let refusing = try await TestAgent(address: bus.address, behaviour: .approve([]), code: .fail)
            try await registry.register(owner: await refusing.uniqueName, path: TestAgent.path)
            #expect(
                await prompt.openAuthorization(url: Self.url)
                    == "the consent agent declined to open it (org.example.Error.Declined)")
            let hanging = try await TestAgent(address: bus.address, behaviour: .approve([]), code: .hang)
            try await registry.register(owner: await hanging.uniqueName, path: TestAgent.path)
            #expect(
                await prompt.openAuthorization(url: Self.url) == "the consent agent did not answer within 0.6 seconds")
            #expect(await hanging.wait { $0.cancels == [7] })
            await refusing.connection.close()
            await hanging.connection.close()
        }
    }
}

import Consent
import DBus
import Foundation
import TestSupport
import Testing

@testable import HolderService

/// The agent-backed consent prompt and the agent registry, over real D-Bus messages on a
/// private dbus-daemon: the service side on one connection, the agent on another.
struct AgentConsentPromptTests {
    static let mDL = "org.iso.18013.5.1.mDL"
    static let ns = "org.iso.18013.5.1"

    static let request = ConsentRequest(
        channel: .ble,
        requester: Requester(
            displayName: "Test Reader", identifier: "CN=Test Reader", authentication: .trusted(anchor: "CN=Reader CA")),
        documents: [
            DocumentRequest(
                docType: mDL, credentialID: "0123456789abcdef",
                elements: [
                    RequestedElement(ElementID(ns, "family_name"), intentToRetain: false, available: true),
                    RequestedElement(ElementID(ns, "age_over_18"), intentToRetain: true, available: true),
                    RequestedElement(ElementID(ns, "biometric_template_face"), intentToRetain: false, available: false),
                ], requester: Requester(displayName: "Test Reader", authentication: .trusted(anchor: "CN=Reader CA")))
        ])

    static let silentLog = ServiceLog(journal: false) { _ in }

    /// A service connection with a registry, and a prompt for session 7.
    static func withService(
        timeout: Duration = .seconds(20),
        _ body: (PrivateBus, DBusConnection, AgentRegistry, AgentConsentPrompt) async throws -> Void
    ) async throws {
        try await PrivateBus.with { bus in
            let service = try await DBusConnection.connect(address: bus.address)
            let registry = AgentRegistry(connection: service, log: silentLog)
            let prompt = AgentConsentPrompt(
                registry: registry, connection: service, session: 7, timeout: timeout, log: silentLog)
            try await body(bus, service, registry, prompt)
            await service.close()
        }
    }

    @Test func noAgentDeclines() async throws {
        try await Self.withService { _, _, _, prompt in
            #expect(await prompt.decide(Self.request) == .decline)
        }
    }

    @Test func theAgentIsAskedWithNamesOnlyAndItsAnswerIsKeptToWhatWasRequested() async throws {
        try await Self.withService { bus, _, registry, prompt in
            let agent = try await TestAgent(
                address: bus.address,
                behaviour: .approve([
                    (Self.mDL, Self.ns, "family_name"),
                    (Self.mDL, Self.ns, "portrait"),  // not requested
                    (Self.mDL, Self.ns, "biometric_template_face"),  // not held
                    ("org.example.other", Self.ns, "family_name"),  // not requested
                ]))
            try await registry.register(owner: await agent.uniqueName, path: TestAgent.path)
            let decision = await prompt.decide(Self.request)
            #expect(decision == .approve([Self.mDL: [ElementID(Self.ns, "family_name")]]))

            let (session, sent) = try #require(agent.requests.first)
            #expect(session == 7)
            #expect(sent["channel"]?.stringValue == "ble")
            #expect(sent["requester"]?.stringValue == "Test Reader")
            #expect(sent["requester_id"]?.stringValue == "CN=Test Reader")
            #expect(sent["authentication"]?.stringValue == "trusted")
            #expect(sent["warning"] == nil)
            let documents = try #require(sent["documents"]?.arrayValue)
            #expect(documents.count == 1)
            let document = try #require(documents[0].propertiesValue)
            #expect(document["doctype"]?.stringValue == Self.mDL)
            #expect(document["held"]?.boolValue == true)
            let elements = try #require(document["elements"]?.arrayValue).compactMap(\.structureFields)
            #expect(elements.count == 3)
            #expect(elements[1] == [.string(Self.ns), .string("age_over_18"), true, true, false])
            #expect(elements[2] == [.string(Self.ns), .string("biometric_template_face"), false, false, false])
            await agent.connection.close()
        }
    }

    @Test func anEmptyAnswerOrAnErrorDeclines() async throws {
        try await Self.withService { bus, _, registry, prompt in
            let empty = try await TestAgent(address: bus.address, behaviour: .approve([]))
            try await registry.register(owner: await empty.uniqueName, path: TestAgent.path)
            #expect(await prompt.decide(Self.request) == .decline)

            let failing = try await TestAgent(address: bus.address, behaviour: .fail)
            try await registry.register(owner: await failing.uniqueName, path: TestAgent.path)
            #expect(await prompt.decide(Self.request) == .decline)
            #expect(failing.requests.count == 1)
            // The newer registration replaced the first agent, which was told.
            #expect(await empty.wait { $0.releases == 1 })
            await empty.connection.close()
            await failing.connection.close()
        }
    }

    @Test func noAnswerWithinTheTimeoutDeclinesAndCancelsTheAgent() async throws {
        try await Self.withService(timeout: .milliseconds(600)) { bus, _, registry, prompt in
            let agent = try await TestAgent(address: bus.address, behaviour: .hang)
            try await registry.register(owner: await agent.uniqueName, path: TestAgent.path)
            let start = ContinuousClock.now
            #expect(await prompt.decide(Self.request) == .decline)
            let elapsed = ContinuousClock.now - start
            #expect(elapsed >= .milliseconds(500) && elapsed < .seconds(30))
            #expect(await agent.wait { $0.cancels == [7] })
            await agent.connection.close()
        }
    }

    @Test func anAgentLeavingMidRequestDeclinesAtOnceAndIsDropped() async throws {
        try await Self.withService { bus, _, registry, prompt in
            let agent = try await TestAgent(address: bus.address, behaviour: .disconnect)
            try await registry.register(owner: await agent.uniqueName, path: TestAgent.path)
            let start = ContinuousClock.now
            #expect(await prompt.decide(Self.request) == .decline)
            #expect(ContinuousClock.now - start < .seconds(5))  // the timeout is 20 s
            var dropped = false
            for _ in 0..<500 where !dropped {
                dropped = await registry.current == nil
                if !dropped { try await Task.sleep(for: .milliseconds(10)) }
            }
            #expect(dropped)
        }
    }

    @Test func aSessionEndingWhileTheAgentIsAskedCancelsTheAgent() async throws {
        try await Self.withService { bus, _, registry, prompt in
            let agent = try await TestAgent(address: bus.address, behaviour: .hang)
            try await registry.register(owner: await agent.uniqueName, path: TestAgent.path)
            let asking = Task { await prompt.decide(Self.request) }
            #expect(await agent.wait { $0.requests.count == 1 })
            asking.cancel()
            #expect(await asking.value == .decline)
            #expect(await agent.wait { $0.cancels == [7] })
            await agent.connection.close()
        }
    }

    @Test func onlyTheRegisteredAgentCanUnregisterAndAGoneConnectionCannotRegister() async throws {
        try await Self.withService { bus, _, registry, _ in
            let agent = try await TestAgent(address: bus.address, behaviour: .fail)
            let owner = await agent.uniqueName
            try await registry.register(owner: owner, path: TestAgent.path)
            await #expect(throws: HolderServiceError.self) {
                try await registry.unregister(owner: ":1.9999", path: TestAgent.path)
            }
            try await registry.unregister(owner: owner, path: TestAgent.path)
            #expect(await registry.current == nil)
            await agent.connection.close()
            do throws(HolderServiceError) {
                try await registry.register(owner: owner, path: TestAgent.path)
                Issue.record("a departed connection was registered")
            } catch {
                #expect(error.name == "org.mdocholder.Error.NotFound")
            }
        }
    }
}

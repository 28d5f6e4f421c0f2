import DBus
import Foundation
import OnlineFlows
import OnlineTransport
import OpenID4VCI
import Synchronization
import TestSupport
import Testing

@testable import HolderService

/// `ConsentAgent1.RequestTransactionCode`: its wire format, and the prompt over real D-Bus
/// messages on a private dbus-daemon (the service on one connection, the agent on another).
struct AgentTransactionCodeTests {
    static let request = TransactionCodeRequest(
        issuerName: "Utopia Test DMV", issuer: "https://issuer.example/s/1", tlsHost: "issuer.example",
        code: TransactionCodeDescription(inputMode: .numeric, length: 6, description: "the code in your letter"))

    // MARK: Wire

    @Test func theRequestCarriesTheIssuerAndTheOffersDescriptionOfTheCode() throws {
        let fields = try #require(AgentTransactionCodeWire.encode(Self.request).propertiesValue)
        #expect(
            fields == [
                "issuer": .string("Utopia Test DMV"), "issuer_id": .string("https://issuer.example/s/1"),
                "issuer_host": .string("issuer.example"), "input_mode": .string("numeric"), "length": .uint32(6),
                "description": .string("the code in your letter"),
            ])
        #expect(AgentTransactionCodeWire.encode(Self.request).signature == "a{sv}")
    }

    @Test func lengthAndDescriptionAreAbsentWhenTheOfferGivesNone() throws {
        var request = Self.request
        request.code = TransactionCodeDescription(inputMode: .text)
        let fields = try #require(AgentTransactionCodeWire.encode(request).propertiesValue)
        #expect(Set(fields.keys) == ["issuer", "issuer_id", "issuer_host", "input_mode"])
        #expect(fields["input_mode"] == .string("text"))
    }

    @Test func theAnswerIsOneNonEmptyStringAndErrorsNeverQuoteIt() throws {
        #expect(try AgentTransactionCodeWire.decode([.string("493817")]) == "493817")
        #expect(throws: AgentTransactionCodeWire.AnswerError.wrongSignature("")) {
            try AgentTransactionCodeWire.decode([])
        }
        #expect(throws: AgentTransactionCodeWire.AnswerError.wrongSignature("ss")) {
            try AgentTransactionCodeWire.decode([.string("493817"), .string("x")])
        }
        #expect(throws: AgentTransactionCodeWire.AnswerError.wrongSignature("u")) {
            try AgentTransactionCodeWire.decode([.uint32(493817)])
        }
        #expect(throws: AgentTransactionCodeWire.AnswerError.empty) {
            try AgentTransactionCodeWire.decode([.string("")])
        }
        let long = String(repeating: "7", count: AgentTransactionCodeWire.codeLimit + 1)
        do {
            _ = try AgentTransactionCodeWire.decode([.string(long)])
            Issue.record("a code longer than the limit was taken")
        } catch {
            #expect(error == .tooLong(long.count))
            #expect(!error.description.contains(long))
        }
    }

    // MARK: Prompt

    /// Lines the prompt logged.
    final class LogLines: Sendable {
        let lines = Mutex<[String]>([])
        var all: String { lines.withLock { $0.joined() } }
        var log: ServiceLog { ServiceLog(journal: false) { line in self.lines.withLock { $0.append(line) } } }
    }

    static func withPrompt(
        timeout: Duration = .seconds(20),
        _ body: (PrivateBus, AgentRegistry, AgentConsentPrompt, LogLines) async throws -> Void
    ) async throws {
        try await PrivateBus.with { bus in
            let service = try await DBusConnection.connect(address: bus.address)
            let lines = LogLines()
            let registry = AgentRegistry(connection: service, log: lines.log)
            let prompt = AgentConsentPrompt(
                registry: registry, connection: service, session: 7, timeout: timeout, log: lines.log)
            try await body(bus, registry, prompt, lines)
            await service.close()
        }
    }

    /// The reason a prompt gave no code, or nil when it gave one.
    static func refusal(_ prompt: AgentConsentPrompt) async -> String? {
        do throws(CredentialIssuanceError) {
            _ = try await prompt.transactionCode(for: request)
            return nil
        } catch {
            guard case .transactionCodeUnavailable(let why) = error else { return "unexpected: \(error)" }
            return why
        }
    }

    @Test func withoutAnAgentThereIsNoCodeAndTheErrorSaysWhy() async throws {
        try await Self.withPrompt { _, _, prompt, _ in
            let why = try #require(await Self.refusal(prompt))
            #expect(why.contains("no consent agent is registered"))
        }
    }

    @Test func theAgentIsAskedWithTheSessionAndItsCodeIsReturnedButNeverLogged() async throws {
        try await Self.withPrompt { bus, registry, prompt, lines in
            let agent = try await TestAgent(
                address: bus.address, behaviour: .approve([]), code: .reply([.string("493817")]))
            try await registry.register(owner: await agent.uniqueName, path: TestAgent.path)
            #expect(try await prompt.transactionCode(for: Self.request) == "493817")
            let (session, sent) = try #require(agent.codeRequests.first)
            #expect(session == 7)
            #expect(sent["issuer"] == .string("Utopia Test DMV"))
            #expect(sent["length"] == .uint32(6))
            #expect(agent.requests.isEmpty)  // no RequestConsent
            #expect(lines.all.contains("the agent gave a transaction code"))
            #expect(!lines.all.contains("493817"))
            await agent.connection.close()
        }
    }

    @Test func anAgentErrorIsADeclineNamedByItsErrorName() async throws {
        try await Self.withPrompt { bus, registry, prompt, _ in
            let agent = try await TestAgent(address: bus.address, behaviour: .approve([]), code: .fail)
            try await registry.register(owner: await agent.uniqueName, path: TestAgent.path)
            let why = try #require(await Self.refusal(prompt))
            #expect(why.contains("declined") && why.contains("org.example.Error.Declined"))
            #expect(!why.contains("user closed the dialog"))  // the agent's own text is not repeated
            await agent.connection.close()
        }
    }

    @Test func anAnswerOfAnotherShapeIsNotTaken() async throws {
        try await Self.withPrompt { bus, registry, prompt, lines in
            let agent = try await TestAgent(
                address: bus.address, behaviour: .approve([]), code: .reply([.string("493817"), .boolean(true)]))
            try await registry.register(owner: await agent.uniqueName, path: TestAgent.path)
            let why = try #require(await Self.refusal(prompt))
            #expect(why.contains("signature 'sb'"))
            #expect(!why.contains("493817") && !lines.all.contains("493817"))
            await agent.connection.close()
        }
    }

    @Test func noAnswerWithinTheTimeoutGivesNoCodeAndCancelsTheAgent() async throws {
        try await Self.withPrompt(timeout: .milliseconds(600)) { bus, registry, prompt, _ in
            let agent = try await TestAgent(address: bus.address, behaviour: .approve([]), code: .hang)
            try await registry.register(owner: await agent.uniqueName, path: TestAgent.path)
            let start = ContinuousClock.now
            let why = try #require(await Self.refusal(prompt))
            #expect(ContinuousClock.now - start < .seconds(5))
            #expect(why.contains("did not answer within"))
            #expect(await agent.wait { $0.cancels == [7] })
            await agent.connection.close()
        }
    }

    @Test func aSessionEndingWhileTheAgentIsAskedCancelsTheAgent() async throws {
        try await Self.withPrompt { bus, registry, prompt, _ in
            let agent = try await TestAgent(address: bus.address, behaviour: .approve([]), code: .hang)
            try await registry.register(owner: await agent.uniqueName, path: TestAgent.path)
            let asking = Task { await Self.refusal(prompt) }
            #expect(await agent.wait { $0.codeRequests.count == 1 })
            asking.cancel()
            #expect(await asking.value?.contains("session ended") == true)
            #expect(await agent.wait { $0.cancels == [7] })
            await agent.connection.close()
        }
    }
}

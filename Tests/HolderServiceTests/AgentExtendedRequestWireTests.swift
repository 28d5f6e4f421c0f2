import Consent
import DBus
import Testing

@testable import HolderService

/// The agent's `RequestConsent` payload for a second-edition request: use cases (with the
/// purpose hints and an unanswerable mandatory one) and the alternatives offered.
struct AgentExtendedRequestWireTests {
    static let ns = "org.iso.18013.5.1"
    static let mDL = "org.iso.18013.5.1.mDL"

    @Test func useCasesAndAlternativesAreSentToTheAgent() throws {
        let requester = Requester(displayName: "Shop", authentication: .unauthenticated)
        let request = ConsentRequest(
            channel: .ble, requester: requester,
            documents: [
                DocumentRequest(
                    docType: Self.mDL, credentialID: "c1",
                    elements: [
                        RequestedElement(ElementID(Self.ns, "age_over_18"), intentToRetain: false, available: false),
                        RequestedElement(
                            ElementID(Self.ns, "birth_date"), intentToRetain: false, available: true,
                            alternativeFor: ElementID(Self.ns, "age_over_18")),
                    ], requester: requester)
            ],
            useCases: [
                ConsentUseCase(index: 0, mandatory: true, purposeHints: ["org.example": 4], answeredBy: [Self.mDL]),
                ConsentUseCase(index: 1, mandatory: true, purposeHints: [:], answeredBy: nil),
            ])
        let sent = try #require(AgentConsentWire.encode(request).propertiesValue)
        let useCases = try #require(sent["use_cases"]?.arrayValue).compactMap(\.propertiesValue)
        #expect(useCases.count == 2)
        #expect(useCases[0]["index"] == .uint32(0) && useCases[0]["mandatory"] == .boolean(true))
        #expect(
            useCases[0]["purpose_hints"]
                == .dictionary(key: .string, value: .int32, [DBusDictEntry(.string("org.example"), .int32(4))]))
        #expect(useCases[0]["answered_by"] == .array(.string, [.string(Self.mDL)]))
        #expect(useCases[1]["answered_by"] == nil)
        let document = try #require(sent["documents"]?.arrayValue?.first?.propertiesValue)
        let alternatives = try #require(document["alternatives"]?.arrayValue).compactMap(\.structureFields)
        #expect(alternatives == [[.string(Self.ns), .string("birth_date"), .string(Self.ns), .string("age_over_18")]])
        // A first-edition request has neither key.
        let plain = ConsentRequest(channel: .ble, requester: requester, documents: [])
        #expect(AgentConsentWire.encode(plain).propertiesValue?["use_cases"] == nil)
    }
}

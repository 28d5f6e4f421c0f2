import Consent
import ConsentPolicy
import Foundation
import TerminalConsent
import Testing

/// Second-edition requests at the consent front-ends: the terminal shows the alternative being
/// answered, the purpose hints and a mandatory use case no credential answers; the kiosk
/// policy grants an alternative only when a rule allows that element itself.
struct ExtendedRequestConsentTests {
    static let ns = "org.iso.18013.5.1"
    static let mDL = "org.iso.18013.5.1.mDL"

    static func request() -> ConsentRequest {
        let requester = Requester(displayName: "Shop", authentication: .trusted(anchor: "CN=Root"))
        let elements = [
            RequestedElement(ElementID(ns, "age_over_18"), intentToRetain: false, available: false),
            RequestedElement(
                ElementID(ns, "birth_date"), intentToRetain: false, available: true,
                alternativeFor: ElementID(ns, "age_over_18")),
        ]
        return ConsentRequest(
            channel: .ble, requester: requester,
            documents: [DocumentRequest(docType: mDL, credentialID: "c1", elements: elements, requester: requester)],
            useCases: [
                ConsentUseCase(index: 0, mandatory: false, purposeHints: ["org.example\n": 3], answeredBy: [mDL]),
                ConsentUseCase(index: 1, mandatory: true, purposeHints: [:], answeredBy: nil),
            ])
    }

    @Test func theTerminalShowsAlternativesPurposesAndAnUnanswerableMandatoryUseCase() {
        let t = ScriptedTerminal(["d"])
        _ = TerminalConsentPrompt(io: t).dialogue(Self.request())
        #expect(
            t.output.contains(
                #"Use case 1 (optional), purpose "org.example\n" = 3: answered by "org.iso.18013.5.1.mDL""#))
        #expect(t.output.contains("Use case 2 (mandatory): none of your credentials can answer it"))
        #expect(
            t.output.contains(
                #"1   "org.iso.18013.5.1:birth_date"  (in place of "org.iso.18013.5.1:age_over_18", not in your credential)"#
            ))
    }

    @Test func thePolicyGrantsAnAlternativeOnlyWhenARuleAllowsIt() throws {
        func policy(_ allow: String) throws -> PolicyConsent {
            try PolicyConsent(
                text: "[[rule]]\nreader = \"any\"\ndoctype = \"\(Self.mDL)\"\nallow = [\(allow)]\n",
                baseDirectory: URL(fileURLWithPath: NSTemporaryDirectory()))
        }
        #expect(try policy(#""org.iso.18013.5.1:age_over_18""#).decideNow(Self.request()) == .decline)
        #expect(
            try policy(#""org.iso.18013.5.1:birth_date""#).decideNow(Self.request())
                == .approve([Self.mDL: [ElementID(Self.ns, "birth_date")]]))
    }

    @Test func useCasesAndAlternativesSurviveCoding() throws {
        let request = Self.request()
        let decoded = try JSONDecoder().decode(ConsentRequest.self, from: JSONEncoder().encode(request))
        #expect(decoded == request)
        #expect(decoded.unsatisfiableMandatoryUseCases.map(\.index) == [1])
    }
}

import Consent
import ConsentPolicy
import Foundation
import TerminalConsent
import Testing

/// Offers (channel issuance) through the terminal and policy front-ends: accepted or declined
/// whole, and issuer rules never mixed with reader rules.
struct IssuanceConsentFrontEndTests {
    static let ns = "org.iso.18013.5.1"
    static let mDL = "org.iso.18013.5.1.mDL"

    static func offer(channel: PresentationChannel = .issuance) -> ConsentRequest {
        let issuer = Requester(
            displayName: "Utopia DMV", identifier: "https://issuer.example",
            authentication: .trusted(anchor: "the TLS certificate of issuer.example"))
        return ConsentRequest(
            channel: channel, requester: issuer,
            documents: [
                DocumentRequest(
                    docType: mDL, credentialID: "mdl",
                    elements: [
                        RequestedElement(
                            ElementID(ns, "family_name"), intentToRetain: false, available: true,
                            displayName: "Family name")
                    ], requester: issuer, displayName: "Driving licence")
            ], warning: "3 copies will be issued, each bound to its own new key")
    }

    @Test func theTerminalShowsTheIssuerTheCredentialAndItsClaimsByName() {
        let t = ScriptedTerminal(["y"])
        let decision = TerminalConsentPrompt(io: t).dialogue(Self.offer())
        #expect(t.output.contains("=== Offer of credentials ==="))
        #expect(
            t.output.contains(
                #"From: "Utopia DMV" ("https://issuer.example") - trusted by the TLS certificate of issuer.example"#))
        #expect(t.output.contains(#"Credential: "Driving licence" ("org.iso.18013.5.1.mDL")"#))
        #expect(t.output.contains(#"  "Family name" - "org.iso.18013.5.1:family_name""#))
        #expect(t.output.contains("WARNING: 3 copies"))
        #expect(decision.approved(for: Self.mDL) == [ElementID(Self.ns, "family_name")])
    }

    @Test func theTerminalDeclinesOnNoOnEndOfInputAndAfterThreeBadAnswers() {
        #expect(TerminalConsentPrompt(io: ScriptedTerminal(["n"])).dialogue(Self.offer()) == .decline)
        #expect(TerminalConsentPrompt(io: ScriptedTerminal([])).dialogue(Self.offer()) == .decline)
        #expect(TerminalConsentPrompt(io: ScriptedTerminal(["x", "a?", "maybe"])).dialogue(Self.offer()) == .decline)
    }

    @Test func issuerRulesNeverAnswerAPresentation() throws {
        let policy = try PolicyConsent(
            text: "[[rule]]\nissuer = \"any\"\ndoctype = \"*\"\n", baseDirectory: URL(fileURLWithPath: "/"))
        #expect(policy.decideNow(Self.offer(channel: .ble)) == .decline)
        #expect(policy.decideNow(Self.offer(channel: .online)) == .decline)
        #expect(policy.decideNow(Self.offer()) != .decline)
    }

    @Test func aRuleHasReaderOrIssuerNotBoth() {
        #expect(throws: PolicyError.self) {
            try PolicyConsent(
                text: "[[rule]]\nreader = \"any\"\nissuer = \"any\"\ndoctype = \"*\"\nallow = [\"*\"]\n",
                baseDirectory: URL(fileURLWithPath: "/"))
        }
        #expect(throws: PolicyError.self) {
            try PolicyConsent(
                text: "[[rule]]\nissuer = \"http://plain.example\"\ndoctype = \"*\"\n",
                baseDirectory: URL(fileURLWithPath: "/"))
        }
    }
}

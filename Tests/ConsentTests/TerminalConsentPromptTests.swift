import Consent
import Foundation
import PrintableText
import TerminalConsent
import Testing

/// A scripted terminal.
final class ScriptedTerminal: TerminalIO, @unchecked Sendable {
    private var lines: [String]
    private(set) var output = ""
    init(_ lines: [String]) { self.lines = lines }
    func write(_ text: String) { output += text }
    func readLine() -> String? { lines.isEmpty ? nil : lines.removeFirst() }
}

struct TerminalConsentPromptTests {
    static let ns = "org.iso.18013.5.1"
    static let mDL = "org.iso.18013.5.1.mDL"

    static func request(warning: String? = nil) -> ConsentRequest {
        let requester = Requester(
            displayName: "Police reader", identifier: "CN=Police reader,C=US",
            authentication: .trusted(anchor: "CN=Police root"))
        return ConsentRequest(
            channel: .ble, requester: requester,
            documents: [
                DocumentRequest(
                    docType: mDL, credentialID: "c1",
                    elements: [
                        RequestedElement(ElementID(ns, "family_name"), intentToRetain: true, available: true),
                        RequestedElement(ElementID(ns, "portrait"), intentToRetain: false, available: true),
                        RequestedElement(ElementID(ns, "age_over_99"), intentToRetain: false, available: false),
                    ], requester: requester)
            ], warning: warning)
    }

    @Test func showsWhoAsksWhatAndHowWellAuthenticated() {
        let t = ScriptedTerminal(["d"])
        _ = TerminalConsentPrompt(io: t).dialogue(Self.request(warning: "The reader is not authenticated."))
        #expect(t.output.contains("WARNING: The reader is not authenticated."))
        #expect(t.output.contains(#"From: "Police reader" ("CN=Police reader,C=US") - trusted by CN=Police root"#))
        #expect(t.output.contains(#"1   "org.iso.18013.5.1:family_name"  (the requester will keep it)"#))
        #expect(t.output.contains(#"-   "org.iso.18013.5.1:age_over_99"  (not in your credential)"#))
        #expect(!t.output.contains("\u{1B}["))  // no colour codes
    }

    @Test func approveAllDeclineAndChoose() async {
        #expect(
            await TerminalConsentPrompt(io: ScriptedTerminal(["a"])).decide(Self.request())
                == .approveAll(Self.request()))
        #expect(await TerminalConsentPrompt(io: ScriptedTerminal(["d"])).decide(Self.request()) == .decline)
        let chosen = await TerminalConsentPrompt(io: ScriptedTerminal(["c", "2"])).decide(Self.request())
        #expect(chosen == .approve([Self.mDL: [ElementID(Self.ns, "portrait")]]))
    }

    @Test func badAnswersAreAskedAgainAndEndOfInputDeclines() {
        let t = ScriptedTerminal(["maybe", "c", "7", "c", "1"])
        #expect(
            TerminalConsentPrompt(io: t).dialogue(Self.request())
                == .approve([Self.mDL: [ElementID(Self.ns, "family_name")]]))
        #expect(t.output.contains("Please answer a, c or d."))
        #expect(t.output.contains(#""7" is not one of the numbers 1-2."#))
        #expect(TerminalConsentPrompt(io: ScriptedTerminal([])).dialogue(Self.request()) == .decline)
        #expect(TerminalConsentPrompt(io: ScriptedTerminal(["x", "y", "z"])).dialogue(Self.request()) == .decline)
    }

    /// A request whose names carry escape sequences, bidirectional overrides and newlines:
    /// every line the prompt writes starts with its own label, the remote text is escaped and
    /// quoted, and no escape character reaches the terminal.
    @Test func remoteTextCannotDriveTheTerminalOrForgeALine() {
        let forged = "\u{1B}[2J\u{1B}[H From: Trusted Police Issuer"
        let requester = Requester(
            displayName: "Evil\u{202E}reader\nFrom: Trusted Police Issuer - trusted by CN=Police root",
            identifier: "CN=\u{9B}2J\u{1B}]0;title\u{7}", authentication: .untrusted(reason: "no chain to \u{1B}[31mX"))
        let request = ConsentRequest(
            channel: .ble, requester: requester,
            documents: [
                DocumentRequest(
                    docType: "org.iso.18013.5.1.mDL\n" + forged, credentialID: "c1",
                    elements: [
                        RequestedElement(
                            ElementID(Self.ns + "\r" + forged, "x"), intentToRetain: false, available: true),
                        RequestedElement(
                            ElementID(Self.ns, "given_name\"  (required)\n  2   forged"), intentToRetain: false,
                            available: true),
                    ], requester: requester)
            ], warning: "The reader is not trusted: \u{1B}[2J\n")
        let t = ScriptedTerminal(["d"])
        #expect(TerminalConsentPrompt(io: t).dialogue(request) == .decline)
        #expect(!t.output.unicodeScalars.contains { RemoteText.isEscaped($0) && $0 != "\n" })
        let lines = t.output.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        #expect(lines.filter { $0.hasPrefix("From:") }.count == 1)
        #expect(
            lines.contains(
                #"From: "Evil\u{202E}reader\nFrom: Trusted Police Issuer - trusted by CN=Police root" ("CN=\u{9B}2J\u{1B}]0;title\u{7}") - not trusted: no chain to \u{1B}[31mX"#
            ))
        #expect(lines.contains(#"Document: "org.iso.18013.5.1.mDL\n\u{1B}[2J\u{1B}[H From: Trusted Police Issuer""#))
        #expect(lines.contains(#"  1   "org.iso.18013.5.1\r\u{1B}[2J\u{1B}[H From: Trusted Police Issuer:x""#))
        #expect(lines.contains(#"  2   "org.iso.18013.5.1:given_name\"  (required)\n  2   forged""#))
        #expect(lines.contains(#"WARNING: The reader is not trusted: \u{1B}[2J\n"#))
        #expect(!lines.contains { $0.hasPrefix("  2   forged") })
    }
}

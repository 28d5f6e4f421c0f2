import Consent
import Dispatch
import FoundationEssentials
import PrintableText
import Synchronization

/// Asks on a terminal, without colour: who asks (and how well authenticated), what, and
/// lets the user approve all, choose elements, or decline. End of input, or a terminal that
/// went away, declines.
///
/// Everything the other side chose (names, identifiers, doc types, element identifiers,
/// certificate names inside the authentication summary, warnings) is shown through
/// ``RemoteText``: escaped, bounded, on the line of the prompt's own label and, where it is a
/// name, in quotes (`From: "…"`, `Document: "…"`), so it cannot pass for the prompt's own lines.
public struct TerminalConsentPrompt: ConsentPrompt {
    private let io: any TerminalIO
    private let lock = DialogueLock()

    public init(io: any TerminalIO) { self.io = io }

    public func decide(_ request: ConsentRequest) async -> ConsentDecision {
        await withCheckedContinuation { continuation in
            // A thread of its own for the blocking dialogue (a serial queue runs on Dispatch's
            // overcommitting pool, never on the cooperative one).
            DispatchQueue(label: "mdoc-holder-consent").async {
                lock.run {
                    let decision = HangupGuard.run(on: io) { dialogue(request) }
                    continuation.resume(returning: decision)
                }
            }
        }
    }

    /// The dialogue, synchronously.
    public func dialogue(_ request: ConsentRequest) -> ConsentDecision {
        if request.channel == .issuance { return issuanceDialogue(request) }
        let channel = request.channel == .ble ? "Bluetooth LE" : "online"
        io.write("\n=== Request for your documents (\(channel)) ===\n")
        if let warning = request.warning { io.write("WARNING: \(RemoteText.printable(warning, limit: 600))\n") }
        writeUseCases(request.useCases)
        var offered: [(docType: String, id: ElementID)] = []
        for doc in request.documents {
            io.write("From: \(Self.requester(doc.requester))\n")
            io.write("Document: \(RemoteText.quoted(doc.docType))\n")
            for element in doc.elements {
                var notes: [String] = []
                if element.intentToRetain { notes.append("the requester will keep it") }
                if element.required { notes.append("required") }
                if let original = element.alternativeFor {
                    notes.append("in place of \(RemoteText.quoted(original.description)), not in your credential")
                }
                if element.available {
                    offered.append((doc.docType, element.id))
                    let number = String(offered.count)
                    let n = number + String(repeating: " ", count: max(0, 3 - number.count))
                    io.write("  \(n) \(RemoteText.quoted(element.id.description))")
                } else {
                    io.write("  -   \(RemoteText.quoted(element.id.description))")
                    notes.append("not in your credential")
                }
                io.write(notes.isEmpty ? "\n" : "  (\(notes.joined(separator: "; ")))\n")
            }
        }
        guard !offered.isEmpty else {
            io.write("Nothing requested is in your credentials: declining.\n")
            return .decline
        }
        return ask("Share? [a]ll, [c]hoose, [d]ecline: ") { answer in
            switch answer {
            case "a", "all":
                io.write("Sharing all \(offered.count) listed elements.\n")
                return .approveAll(request)
            case "d", "decline", "n", "no":
                io.write("Declined.\n")
                return .decline
            case "c", "choose":
                return choose(from: offered)
            default:
                io.write("Please answer a, c or d.\n")
                return nil
            }
        }
    }

    /// The use cases of a second-edition request: what each is for, which documents answer
    /// it, and the mandatory ones none of your credentials can answer.
    private func writeUseCases(_ useCases: [ConsentUseCase]) {
        for useCase in useCases {
            let kind = useCase.mandatory ? "mandatory" : "optional"
            var line = "Use case \(useCase.index + 1) (\(kind))"
            if !useCase.purposeHints.isEmpty {
                let hints = useCase.purposeHints.sorted { $0.key < $1.key }.map {
                    "\(RemoteText.quoted($0.key)) = \($0.value)"
                }
                line += ", purpose \(hints.joined(separator: ", "))"
            }
            if let docTypes = useCase.answeredBy {
                line += ": answered by \(docTypes.map { RemoteText.quoted($0) }.joined(separator: ", "))"
            } else {
                line += ": none of your credentials can answer it"
            }
            io.write(line + "\n")
        }
    }

    /// An issuer offers credentials: who (its name and TLS host), what (the credential and the
    /// claims it will hold); accept or decline, nothing to choose.
    private func issuanceDialogue(_ request: ConsentRequest) -> ConsentDecision {
        io.write("\n=== Offer of credentials ===\n")
        if let warning = request.warning { io.write("WARNING: \(RemoteText.printable(warning, limit: 600))\n") }
        io.write("From: \(Self.requester(request.requester))\n")
        for doc in request.documents {
            let docType = RemoteText.quoted(doc.docType)
            io.write("Credential: \(doc.displayName.map { "\(RemoteText.quoted($0)) (\(docType))" } ?? docType)\n")
            for element in doc.elements {
                let id = RemoteText.quoted(element.id.description)
                io.write("  \(element.displayName.map { "\(RemoteText.quoted($0)) - " } ?? "")\(id)\n")
            }
        }
        return ask("Accept? [y]es, [n]o: ") { answer in
            switch answer {
            case "y", "yes", "a", "accept":
                io.write("Accepted.\n")
                return .approveAll(request)
            case "n", "no", "d", "decline":
                io.write("Declined.\n")
                return .decline
            default:
                io.write("Please answer y or n.\n")
                return nil
            }
        }
    }

    /// Asks `question` up to three times: `answer` turns a reply (trimmed, lowercased) into a
    /// decision, or says what is expected and returns nil to ask again. No answer (end of
    /// input, a terminal gone) or three replies that are no answer decline.
    private func ask(_ question: String, _ answer: (String) -> ConsentDecision?) -> ConsentDecision {
        for _ in 0..<3 {
            io.write(question)
            guard let reply = io.readLine()?.trimmingBlanks().lowercased() else {
                io.write("\nNo answer: declined.\n")
                return .decline
            }
            if let decision = answer(reply) { return decision }
        }
        io.write("No valid answer: declined.\n")
        return .decline
    }

    private func choose(from offered: [(docType: String, id: ElementID)]) -> ConsentDecision? {
        io.write("Numbers to share, separated by spaces (empty shares nothing): ")
        guard let line = io.readLine() else { return .decline }
        var picked: [String: Set<ElementID>] = [:]
        for word in line.split(whereSeparator: { $0 == " " || $0 == "," }) {
            guard let n = Int(word), n >= 1, n <= offered.count else {
                io.write(
                    "\(RemoteText.quoted(String(word), limit: 20)) is not one of the numbers 1-\(offered.count).\n")
                return nil
            }
            picked[offered[n - 1].docType, default: []].insert(offered[n - 1].id)
        }
        if picked.isEmpty {
            io.write("Nothing chosen: declined.\n")
            return .decline
        }
        let count = picked.values.map(\.count).reduce(0, +)
        io.write("Sharing \(count) element\(count == 1 ? "" : "s").\n")
        return .approve(picked)
    }

    /// `"name" ("identifier") - authentication`: the names quoted, the summary (our words
    /// around certificate names and reasons) made printable.
    static func requester(_ who: Requester) -> String {
        var text = RemoteText.quoted(who.displayName)
        if let id = who.identifier, id != who.displayName { text += " (\(RemoteText.quoted(id)))" }
        return text + " - " + RemoteText.printable(who.authentication.summary, limit: 400)
    }
}

/// One dialogue on the terminal at a time (one terminal per process: the lock is shared).
final class DialogueLock: @unchecked Sendable {
    private static let shared = Mutex<Void>(())
    func run(_ body: () -> Void) {
        Self.shared.withLock { _ in body() }
    }
}

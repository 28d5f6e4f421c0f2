import Foundation

/// Lines in and out of a terminal (the controlling TTY in the product, a script in tests).
public protocol TerminalIO: Sendable {
    func write(_ text: String)
    /// One line without its newline; nil at end of input.
    func readLine() -> String?
}

/// The controlling terminal, `/dev/tty`: the prompt works even when standard input and
/// output are redirected (for example `--qr uri` piped into another program).
public final class ControllingTerminal: TerminalIO, @unchecked Sendable {
    // Used by one prompt at a time (TerminalConsentPrompt runs one dialogue at a time).
    private let handle: FileHandle

    public init() throws {
        guard let h = FileHandle(forUpdatingAtPath: "/dev/tty") else {
            throw ConsentFrontEndError.noTerminal
        }
        handle = h
    }

    public func write(_ text: String) { handle.write(Data(text.utf8)) }

    public func readLine() -> String? {
        var bytes: [UInt8] = []
        while true {
            let chunk = handle.readData(ofLength: 1)
            guard let b = chunk.first else { return bytes.isEmpty ? nil : String(decoding: bytes, as: UTF8.self) }
            if b == 0x0A { return String(decoding: bytes, as: UTF8.self) }
            bytes.append(b)
        }
    }
}

public enum ConsentFrontEndError: Error, Sendable, CustomStringConvertible {
    case noTerminal
    public var description: String {
        switch self {
        case .noTerminal:
            return "no controlling terminal for the consent prompt: use --consent policy:FILE on a headless machine"
        }
    }
}

/// Asks on a terminal, without colour: who asks (and how well authenticated), what, and
/// lets the user approve all, choose elements, or decline. End of input declines.
public struct TerminalConsentPrompt: ConsentPrompt {
    private let io: any TerminalIO
    private let lock = DialogueLock()

    public init(io: any TerminalIO) { self.io = io }

    public func decide(_ request: ConsentRequest) async -> ConsentDecision {
        await withCheckedContinuation { continuation in
            Thread.detachNewThread {
                lock.run { continuation.resume(returning: dialogue(request)) }
            }
        }
    }

    /// The dialogue, synchronously.
    public func dialogue(_ request: ConsentRequest) -> ConsentDecision {
        if request.channel == .issuance { return issuanceDialogue(request) }
        let channel = request.channel == .ble ? "Bluetooth LE" : "online"
        io.write("\n=== Request for your documents (\(channel)) ===\n")
        if let warning = request.warning { io.write("WARNING: \(warning)\n") }
        var offered: [(docType: String, id: ElementID)] = []
        for doc in request.documents {
            let who = doc.requester
            io.write("From: \(who.displayName)")
            if let id = who.identifier, id != who.displayName { io.write(" (\(id))") }
            io.write(" - \(who.authentication.summary)\n")
            io.write("Document: \(doc.docType)\n")
            for element in doc.elements {
                var notes: [String] = []
                if element.intentToRetain { notes.append("the requester will keep it") }
                if element.required { notes.append("required") }
                if element.available {
                    offered.append((doc.docType, element.id))
                    let n = String(offered.count).padding(toLength: 3, withPad: " ", startingAt: 0)
                    io.write("  \(n) \(element.id)")
                } else {
                    io.write("  -   \(element.id)")
                    notes.append("not in your credential")
                }
                io.write(notes.isEmpty ? "\n" : "  (\(notes.joined(separator: "; ")))\n")
            }
        }
        guard !offered.isEmpty else {
            io.write("Nothing requested is in your credentials: declining.\n")
            return .decline
        }
        for _ in 0..<3 {
            io.write("Share? [a]ll, [c]hoose, [d]ecline: ")
            guard let answer = io.readLine()?.trimmingCharacters(in: .whitespaces).lowercased() else {
                io.write("\nNo answer: declined.\n")
                return .decline
            }
            switch answer {
            case "a", "all":
                io.write("Sharing all \(offered.count) listed elements.\n")
                return .approveAll(request)
            case "d", "decline", "n", "no":
                io.write("Declined.\n")
                return .decline
            case "c", "choose":
                if let decision = choose(from: offered) { return decision }
            default:
                io.write("Please answer a, c or d.\n")
            }
        }
        io.write("No valid answer: declined.\n")
        return .decline
    }

    /// An issuer offers credentials: who (its name and TLS host), what (the credential and the
    /// claims it will hold); accept or decline, nothing to choose.
    private func issuanceDialogue(_ request: ConsentRequest) -> ConsentDecision {
        io.write("\n=== Offer of credentials ===\n")
        if let warning = request.warning { io.write("WARNING: \(warning)\n") }
        let issuer = request.requester
        io.write("From: \(issuer.displayName)")
        if let id = issuer.identifier, id != issuer.displayName { io.write(" (\(id))") }
        io.write(" - \(issuer.authentication.summary)\n")
        for doc in request.documents {
            io.write("Credential: \(doc.displayName.map { "\($0) (\(doc.docType))" } ?? doc.docType)\n")
            for element in doc.elements {
                io.write("  \(element.displayName.map { "\($0) - " } ?? "")\(element.id)\n")
            }
        }
        for _ in 0..<3 {
            io.write("Accept? [y]es, [n]o: ")
            guard let answer = io.readLine()?.trimmingCharacters(in: .whitespaces).lowercased() else {
                io.write("\nNo answer: declined.\n")
                return .decline
            }
            switch answer {
            case "y", "yes", "a", "accept":
                io.write("Accepted.\n")
                return .approveAll(request)
            case "n", "no", "d", "decline":
                io.write("Declined.\n")
                return .decline
            default:
                io.write("Please answer y or n.\n")
            }
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
                io.write("\(word) is not one of the numbers 1-\(offered.count).\n")
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
}

/// One dialogue on the terminal at a time.
final class DialogueLock: @unchecked Sendable {
    private let lock = NSLock()
    func run(_ body: () -> Void) {
        lock.lock()
        defer { lock.unlock() }
        body()
    }
}

import BoundedFile
import Foundation
import PrintableText

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Lines in and out of a terminal (the controlling TTY in the product, a script in tests).
public protocol TerminalIO: Sendable {
    func write(_ text: String)
    /// One line without its newline; nil at end of input, or when the terminal has gone away.
    func readLine() -> String?
}

/// The controlling terminal, `/dev/tty`: the prompt works even when standard input and
/// output are redirected (for example `--qr uri` piped into another program).
///
/// Reads and writes go straight to the file descriptor and report a terminal that went away
/// (a hangup: end of input, `EIO`, `EPIPE`) as the end of input, so the dialogue declines; they
/// never trap. Interrupted calls (`EINTR`) are retried.
public final class ControllingTerminal: TerminalIO, @unchecked Sendable {
    // Used by one dialogue at a time (TerminalConsentPrompt runs one dialogue at a time); the
    // lock covers `gone` for the rare write from another thread.
    private let fd: Int32
    private let state = NSLock()
    private var gone = false

    public init() throws {
        let fd = open("/dev/tty", O_RDWR | O_NOCTTY | O_CLOEXEC)
        guard fd >= 0 else { throw ConsentFrontEndError.noTerminal }
        self.fd = fd
    }

    deinit { close(fd) }

    /// The file descriptor of `/dev/tty` (for terminal settings such as echo).
    public var fileDescriptor: Int32 { fd }

    /// Whether the terminal has gone away (hung up, closed, an I/O error).
    public var hasGoneAway: Bool { state.withLock { gone } }

    private func markGone() { state.withLock { gone = true } }

    public func write(_ text: String) {
        guard !hasGoneAway else { return }
        // EIO after a hangup, EPIPE, or nothing written: the terminal is gone.
        if !DescriptorWrite.all(Array(text.utf8), to: fd) { markGone() }
    }

    public func readLine() -> String? {
        guard !hasGoneAway else { return nil }
        var bytes: [UInt8] = []
        var byte: UInt8 = 0
        while true {
            let count = systemRead(fd, &byte)
            if count == 1 {
                if byte == 0x0A { return String(decoding: bytes, as: UTF8.self) }
                // A line longer than any answer is not an answer; keep reading to its end.
                if bytes.count < 4096 { bytes.append(byte) }
                continue
            }
            if count < 0 && errno == EINTR { continue }
            // End of input (a hangup reads as end of file) or an error (EIO): no answer.
            markGone()
            return nil
        }
    }
}

private func systemRead(_ fd: Int32, _ byte: inout UInt8) -> Int { read(fd, &byte, 1) }

/// While a dialogue waits on the terminal, a hangup is an answer (a decline), not the end of
/// the process: SIGHUP (sent to the terminal's processes when it hangs up) and SIGPIPE are
/// ignored. When the dialogue ends with the terminal still there, the previous handlers come
/// back; after a hangup SIGHUP stays ignored so that the decline is answered and recorded.
public enum HangupGuard {
    private static let lock = NSLock()

    /// Runs `body` (a dialogue on `io`) with SIGHUP and SIGPIPE ignored. Dialogues do not nest.
    public static func run<T>(on io: any TerminalIO, _ body: () -> T) -> T {
        lock.lock()
        defer { lock.unlock() }
        let previousHangup = signal(SIGHUP, SIG_IGN)
        let previousPipe = signal(SIGPIPE, SIG_IGN)
        let result = body()
        if (io as? ControllingTerminal)?.hasGoneAway != true {
            signal(SIGHUP, previousHangup)
            signal(SIGPIPE, previousPipe)
        }
        return result
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
            Thread.detachNewThread {
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
        var offered: [(docType: String, id: ElementID)] = []
        for doc in request.documents {
            io.write("From: \(Self.requester(doc.requester))\n")
            io.write("Document: \(RemoteText.quoted(doc.docType))\n")
            for element in doc.elements {
                var notes: [String] = []
                if element.intentToRetain { notes.append("the requester will keep it") }
                if element.required { notes.append("required") }
                if element.available {
                    offered.append((doc.docType, element.id))
                    let n = String(offered.count).padding(toLength: 3, withPad: " ", startingAt: 0)
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
    private static let shared = NSLock()
    private let lock = DialogueLock.shared
    func run(_ body: () -> Void) {
        lock.lock()
        defer { lock.unlock() }
        body()
    }
}

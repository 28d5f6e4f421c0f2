import BoundedFile
import FoundationEssentials
import Synchronization

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
    private let gone = Mutex(false)

    public init() throws {
        let fd = open("/dev/tty", O_RDWR | O_NOCTTY | O_CLOEXEC)
        guard fd >= 0 else { throw ConsentFrontEndError.noTerminal }
        self.fd = fd
    }

    deinit { close(fd) }

    /// The file descriptor of `/dev/tty` (for terminal settings such as echo).
    public var fileDescriptor: Int32 { fd }

    /// Whether the terminal has gone away (hung up, closed, an I/O error).
    public var hasGoneAway: Bool { gone.withLock { $0 } }

    private func markGone() { gone.withLock { $0 = true } }

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

public enum ConsentFrontEndError: Error, Sendable, CustomStringConvertible {
    case noTerminal
    public var description: String {
        switch self {
        case .noTerminal:
            return "no controlling terminal for the consent prompt: use --consent policy:FILE on a headless machine"
        }
    }
}

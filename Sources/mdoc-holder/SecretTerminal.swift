import FoundationEssentials
import TerminalConsent

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

/// The controlling terminal for one secret line (a transaction code): echo is off while it is
/// typed and restored afterwards, whatever happens. A terminal that goes away while it waits
/// (a hangup, end of input, EIO) is no answer, never a crash (the reads and writes of
/// ``ControllingTerminal``, SIGHUP ignored while it waits).
struct SecretTerminal {
    private let terminal: ControllingTerminal

    init() throws {
        guard let terminal = try? ControllingTerminal() else {
            throw WalletCLIError(
                "no terminal to ask the transaction code on: give it with --tx-code-file FILE (- for standard input)")
        }
        self.terminal = terminal
    }

    /// Writes `prompt`, reads one line without echo; nil at end of input or when the terminal
    /// has gone away.
    func readSecret(prompt: String) -> String? {
        HangupGuard.run(on: terminal) {
            terminal.write(prompt)
            let fd = terminal.fileDescriptor
            var saved = termios()
            let canHide = tcgetattr(fd, &saved) == 0
            if canHide {
                var hidden = saved
                hidden.c_lflag &= ~tcflag_t(ECHO)
                _ = tcsetattr(fd, TCSAFLUSH, &hidden)
            }
            defer {
                if canHide { _ = tcsetattr(fd, TCSAFLUSH, &saved) }
                terminal.write("\n")
            }
            return terminal.readLine().map { String($0.filter { $0 != "\r" }) }
        }
    }
}

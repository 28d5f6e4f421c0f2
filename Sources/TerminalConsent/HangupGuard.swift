import FoundationEssentials
import Synchronization

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// While a dialogue waits on the terminal, a hangup is an answer (a decline), not the end of
/// the process: SIGHUP (sent to the terminal's processes when it hangs up) and SIGPIPE are
/// ignored. When the dialogue ends with the terminal still there, the previous handlers come
/// back; after a hangup SIGHUP stays ignored so that the decline is answered and recorded.
public enum HangupGuard {
    private static let lock = Mutex<Void>(())

    /// Runs `body` (a dialogue on `io`) with SIGHUP and SIGPIPE ignored. Dialogues do not nest.
    public static func run<T: Sendable>(on io: any TerminalIO, _ body: () -> T) -> T {
        lock.withLock { _ in
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
}

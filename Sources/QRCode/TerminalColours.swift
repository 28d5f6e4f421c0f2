#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

/// Whether a QR code drawn on a terminal gets explicit colours.
public enum TerminalColours {
    /// Bright white foreground (light modules) on black background (dark modules).
    static let lightOnDark = "\u{1B}[97;40m"
    static let reset = "\u{1B}[0m"

    /// True when `fd` is a terminal and NO_COLOR (https://no-color.org) is unset or empty:
    /// a file or a pipe gets plain text, and so does a user who asked for no colour.
    public static func wanted(fd: Int32, environment: [String: String]) -> Bool {
        wanted(isTerminal: isatty(fd) == 1, environment: environment)
    }

    /// The decision for an output that is (or is not) a terminal.
    public static func wanted(isTerminal: Bool, environment: [String: String]) -> Bool {
        if let noColor = environment["NO_COLOR"], !noColor.isEmpty { return false }
        return isTerminal
    }
}

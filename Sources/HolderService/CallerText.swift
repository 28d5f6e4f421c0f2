/// Caller-supplied text (an option name, an adapter name, a URL) as the service repeats it in
/// a reply or a log line: at most ``limit`` characters, then "…(N characters)". A caller
/// sending a megabyte gets a short reply, and the log a short line.
enum CallerText {
    static let limit = 64

    static func bounded(_ text: String, limit: Int = limit) -> String {
        guard text.count > limit else { return text }
        return String(text.prefix(limit)) + "…(\(text.count) characters)"
    }
}

/// White space taken off the ends of text read from outside (a pasted URL, a file's line, a
/// header), as Foundation's `trimmingCharacters(in:)` with `.whitespacesAndNewlines` and
/// `.whitespaces` does, without Foundation: the Unicode White_Space property decides.
extension StringProtocol {
    /// Without white space at either end, line ends included (spaces, tabs, CR, LF, VT, FF,
    /// NEL, no-break and other Unicode spaces, the line and paragraph separators).
    public func trimmingWhitespace() -> String {
        trimming { $0.properties.isWhitespace }
    }

    /// Without blanks at either end: white space other than line ends (spaces, tabs, no-break
    /// and other Unicode spaces), so a line's own end is kept.
    public func trimmingBlanks() -> String {
        trimming { $0.properties.isWhitespace && !Self.endsLine($0) }
    }

    private static func endsLine(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar.value {
        case 0x0A...0x0D, 0x85, 0x2028, 0x2029: return true
        default: return false
        }
    }

    private func trimming(_ trimmed: (Unicode.Scalar) -> Bool) -> String {
        let scalars = unicodeScalars
        var start = scalars.startIndex
        var end = scalars.endIndex
        while start < end, trimmed(scalars[start]) { start = scalars.index(after: start) }
        while end > start, trimmed(scalars[scalars.index(before: end)]) { end = scalars.index(before: end) }
        return String(String.UnicodeScalarView(scalars[start..<end]))
    }
}

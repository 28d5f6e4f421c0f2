/// The one rule for text from outside (a DeviceRequest, a certificate, issuer or verifier
/// metadata, an error answer, a file, the store's copies of those) on its way to a terminal,
/// a log line, an error message or a D-Bus error string: it is shown, never obeyed.
///
/// - Control characters are shown escaped: C0 (newline as `\n`, carriage return as `\r`, tab
///   as `\t`, ESC as `\u{1B}`, the rest as `\u{…}`), DEL and C1 (U+0080–U+009F). An escape or
///   operating-system-command sequence (`ESC [ 2 J`, `ESC ] …`) thus becomes inert visible text
///   such as `\u{1B}[2J`.
/// - Bidirectional controls (U+061C, U+200E, U+200F, U+202A–U+202E, U+2066–U+2069) and the
///   line and paragraph separators (U+2028, U+2029) are shown escaped the same way, so text
///   cannot reorder or break the line it stands on.
/// - The result is at most `limit` Unicode scalars; a longer text is cut and ends in "…".
///
/// The result holds no character this rule escapes, so applying it again changes nothing
/// (a backslash is left as it is: a sender writing `\u{1B}` itself gets the same inert text).
public enum RemoteText {
    /// The longest text shown by default, in Unicode scalars.
    public static let defaultLimit = 200

    /// `text` made printable and bounded (see ``RemoteText``). Reads no further into `text`
    /// than the limit needs.
    public static func printable(_ text: String, limit: Int = defaultLimit) -> String {
        let limit = max(limit, 1)
        var out = String.UnicodeScalarView()
        var count = 0
        // How much of `out` fits beside an ellipsis, should the text turn out too long.
        var fitting = 0
        for scalar in text.unicodeScalars {
            let piece = escaped(scalar)
            let length = piece.map(\.unicodeScalars.count) ?? 1
            if count + length > limit {
                return String(String.UnicodeScalarView(out.prefix(fitting))) + "…"
            }
            if let piece { out.append(contentsOf: piece.unicodeScalars) } else { out.append(scalar) }
            count += length
            if count <= limit - 1 { fitting = count }
        }
        return String(out)
    }

    /// `text` made printable and bounded, in double quotes, a double quote inside shown as
    /// `\"`: how a prompt shows a remote name after its own label (`From: "…"`), so the name
    /// cannot pass for the prompt's own words.
    public static func quoted(_ text: String, limit: Int = defaultLimit) -> String {
        var out = "\""
        for character in printable(text, limit: limit) {
            if character == "\"" { out += "\\" }
            out.append(character)
        }
        return out + "\""
    }

    /// Whether `scalar` is shown escaped.
    public static func isEscaped(_ scalar: Unicode.Scalar) -> Bool { escaped(scalar) != nil }

    /// The visible form of a scalar the rule escapes; nil for one shown as it is.
    static func escaped(_ scalar: Unicode.Scalar) -> String? {
        switch scalar.value {
        case 0x0A: return "\\n"
        case 0x0D: return "\\r"
        case 0x09: return "\\t"
        case 0x00...0x1F, 0x7F, 0x80...0x9F,  // C0, DEL, C1
            0x061C, 0x200E, 0x200F, 0x202A...0x202E, 0x2066...0x2069,  // bidirectional controls
            0x2028, 0x2029:  // line and paragraph separators
            return "\\u{" + String(scalar.value, radix: 16, uppercase: true) + "}"
        default:
            return nil
        }
    }
}

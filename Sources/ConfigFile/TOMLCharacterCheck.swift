/// Checks what toml++ (under TOMLKit) assumes without checking, before it sees the text:
/// it stops the process on an assertion when a key is expected and something else stands
/// there (`[[,verifier]]`, `[\u{86}x]`: found by fuzzing). So every place a key must start
/// (a line, a table header, after `.` in a key, after `{` or `,` in an inline table) must
/// hold a bare-key character or a quote, and characters outside ASCII may appear only in
/// strings and comments (as TOML says); anything else is refused here, with its line.
struct TOMLCharacterCheck {
    private enum Mode { case plain, comment, basic, literal, multilineBasic, multilineLiteral }

    private let scalars: [Unicode.Scalar]
    private var mode = Mode.plain
    private var line = 1
    private var i = 0
    private var nesting: [Unicode.Scalar] = []  // "[" arrays, "{" inline tables, of values
    private var expectKey = true  // a key must start at the next character that is not a space
    private var inKey = true  // between the start of a key and its "=" (or a header's "]")
    private var inHeader = false
    // The key expected starts a statement (a line): a comment or a blank line may stand
    // there instead. Anywhere else (a header, after "." or "{" or ",") a key must follow.
    private var statementStart = true
    // A value must start at the next character that is not a space (after "=", or in
    // an array after "[" or ","): toml++ asserts on a terminator there too (fuzzing).
    private var expectValue = false

    private init(_ text: String) { scalars = Array(text.unicodeScalars) }

    /// Refuses `text` at the first character toml++ must not see.
    static func check(_ text: String) throws(ConfigFileSyntaxError) {
        var check = TOMLCharacterCheck(text)
        try check.run()
    }

    private mutating func run() throws(ConfigFileSyntaxError) {
        while i < scalars.count {
            let c = scalars[i]
            if c == "\n" {
                try endOfLine()
            } else if mode == .plain {
                try plain(c)
            } else {
                insideStringOrComment(c)
            }
            i += 1
        }
        if mode == .plain, inHeader || (expectKey && !statementStart) || expectValue {
            throw refuse("expected a key or a value before the end of the file")
        }
    }

    private func starts(_ s: String, at index: Int) -> Bool {
        let pattern = Array(s.unicodeScalars)
        return index + pattern.count <= scalars.count && Array(scalars[index..<index + pattern.count]) == pattern
    }

    private func isBareKey(_ c: Unicode.Scalar) -> Bool {
        c.isASCII && (c.properties.isAlphabetic || ("0"..."9").contains(c) || c == "_" || c == "-")
    }

    private func refuse(_ what: String) -> ConfigFileSyntaxError { .syntax(line: line, what) }

    private mutating func endOfLine() throws(ConfigFileSyntaxError) {
        if mode == .plain, inHeader || (expectKey && !statementStart) {
            throw refuse("expected a key before the end of the line")
        }
        if mode == .plain, expectValue, nesting.last != "[" {
            throw refuse("expected a value before the end of the line")
        }
        line += 1
        if mode == .comment || mode == .basic || mode == .literal { mode = .plain }
        if mode == .plain, nesting.isEmpty {
            statementStart = true
            expectKey = true
            inKey = true
            inHeader = false
        }
    }

    /// A character outside strings and comments.
    private mutating func plain(_ c: Unicode.Scalar) throws(ConfigFileSyntaxError) {
        if c == "\r" {
            // TOML has \r only in \r\n; toml++ took a lone one for a key (fuzzing).
            guard i + 1 < scalars.count, scalars[i + 1] == "\n" else {
                throw refuse("a carriage return not followed by a line feed")
            }
            return
        }
        if c == " " || c == "\t" { return }
        if c == "#" {
            if expectKey && !statementStart { throw refuse("expected a key, found a comment") }
            if expectValue && nesting.last != "[" { throw refuse("expected a value, found a comment") }
            mode = .comment
            return
        }
        if !c.isASCII {
            throw refuse(
                "a character outside ASCII (U+\(String(c.value, radix: 16, uppercase: true))) outside a string or comment"
            )
        }
        if expectValue {
            if c == "," || c == "}" || (c == "]" && nesting.last != "[") {
                throw refuse("expected a value, found '\(Character(c))'")
            }
            expectValue = false
        }
        if expectKey {
            try keyStart(c)
        } else {
            punctuation(c)
        }
    }

    /// The first character where a key must start.
    private mutating func keyStart(_ c: Unicode.Scalar) throws(ConfigFileSyntaxError) {
        let atStatement = statementStart
        statementStart = false
        if c == "[", nesting.isEmpty, !inHeader, atStatement {
            // A table header: [name] or [[name]].
            inHeader = true
            if starts("[[", at: i) { i += 1 }
        } else if c == "}", nesting.last == "{" {
            nesting.removeLast()
            expectKey = false
            inKey = false
        } else if isBareKey(c) {
            expectKey = false
        } else if c == "\"" || c == "\'" {
            // A key is a one-line string, never a multi-line one.
            if starts(c == "\"" ? "\"\"\"" : "\'\'\'", at: i) {
                throw refuse("a multi-line string cannot be a key")
            }
            expectKey = false
            mode = c == "\"" ? .basic : .literal
        } else {
            throw refuse("expected a key, found '\(Character(c))'")
        }
    }

    /// A character in a key (after its start), after `=`, or in a value.
    private mutating func punctuation(_ c: Unicode.Scalar) {
        switch c {
        case "." where inKey: expectKey = true
        case "=" where inKey && !inHeader:
            inKey = false
            expectValue = true
        case "]" where inHeader && nesting.isEmpty:
            inHeader = false
            inKey = false
            if starts("]]", at: i) { i += 1 }
        case "\"":
            if starts("\"\"\"", at: i) {
                mode = .multilineBasic
                i += 2
            } else {
                mode = .basic
            }
        case "\'":
            if starts("\'\'\'", at: i) {
                mode = .multilineLiteral
                i += 2
            } else {
                mode = .literal
            }
        case "{" where !inKey:
            nesting.append("{")
            expectKey = true
            inKey = true
        case "[" where !inKey:
            nesting.append("[")
            expectValue = true
        case "]" where nesting.last == "[": nesting.removeLast()
        case "}" where nesting.last == "{":
            nesting.removeLast()
            inKey = false
        case "," where nesting.last == "{" && !inKey:
            expectKey = true
            inKey = true
        case "," where nesting.last == "[": expectValue = true
        default: break
        }
    }

    /// A character inside a string or a comment: only its end matters.
    private mutating func insideStringOrComment(_ c: Unicode.Scalar) {
        switch mode {
        case .plain, .comment:
            break
        case .basic:
            if c == "\\" {
                i += 1
            } else if c == "\"" {
                mode = .plain
            }
        case .literal:
            if c == "\'" { mode = .plain }
        case .multilineBasic:
            if c == "\\" {
                i += 1
            } else if starts("\"\"\"", at: i) {
                mode = .plain
                i += 2
            }
        case .multilineLiteral:
            if starts("\'\'\'", at: i) {
                mode = .plain
                i += 2
            }
        }
    }
}

extension TOMLParser {
    /// A value: a string, an array, an inline table, a boolean, a number, a date or a time.
    mutating func value() throws(ConfigFileSyntaxError) -> TOMLValue {
        guard let byte = peek else { throw error("expected a value, found \(found)") }
        switch byte {
        case UInt8(ascii: "\""):
            if peek(1) == byte, peek(2) == byte { return .string(try multilineString(literal: false)) }
            return .string(try basicString())
        case UInt8(ascii: "'"):
            if peek(1) == byte, peek(2) == byte { return .string(try multilineString(literal: true)) }
            return .string(try literalString())
        case UInt8(ascii: "["), UInt8(ascii: "{"):
            guard nesting < Self.maximumNesting else {
                throw error("arrays and inline tables nested more than \(Self.maximumNesting) deep")
            }
            nesting += 1
            defer { nesting -= 1 }
            return try byte == UInt8(ascii: "[") ? array() : inlineTable()
        default:
            return try scalar()
        }
    }

    // MARK: Arrays and inline tables

    /// `[ value, value, ]`, over as many lines as it likes, comments between values.
    private mutating func array() throws(ConfigFileSyntaxError) -> TOMLValue {
        position += 1
        var elements: [TOMLNode] = []
        while true {
            try skipBlanksCommentsAndNewlines()
            if peek == UInt8(ascii: "]") {
                position += 1
                return .array(elements)
            }
            let elementLine = line
            elements.append(TOMLNode(value: try value(), line: elementLine))
            try skipBlanksCommentsAndNewlines()
            if peek == UInt8(ascii: ",") {
                position += 1
            } else if peek == UInt8(ascii: "]") {
                position += 1
                return .array(elements)
            } else {
                throw error("expected ',' or ']' in an array, found \(found)")
            }
        }
    }

    private mutating func skipBlanksCommentsAndNewlines() throws(ConfigFileSyntaxError) {
        while true {
            skipBlanks()
            try skipComment()
            if !newline() { return }
        }
    }

    /// `{ key = value, key = value }` on one line, complete as written.
    private mutating func inlineTable() throws(ConfigFileSyntaxError) -> TOMLValue {
        position += 1
        let table = TOMLTable(origin: .inline)
        skipBlanks()
        if peek == UInt8(ascii: "}") {
            position += 1
            return .table(table)
        }
        while true {
            skipBlanks()
            let (path, keyLine) = try key()
            try keyValue(path: path, line: keyLine, into: table)
            skipBlanks()
            if peek == UInt8(ascii: ",") {
                position += 1
            } else if peek == UInt8(ascii: "}") {
                position += 1
                return .table(table)
            } else {
                throw error("expected ',' or '}' in an inline table, found \(found)")
            }
        }
    }

    // MARK: Strings

    /// `"..."`, with escapes.
    mutating func basicString() throws(ConfigFileSyntaxError) -> String {
        position += 1
        var out: [UInt8] = []
        while true {
            guard let byte = peek, byte != 0x0A, byte != 0x0D else { throw error("a string is not closed") }
            position += 1
            switch byte {
            case UInt8(ascii: "\""):
                return String(decoding: out, as: UTF8.self)
            case UInt8(ascii: "\\"):
                try escape(into: &out)
            default:
                if Self.isForbiddenControl(byte) { throw error("a control character in a string") }
                out.append(byte)
            }
        }
    }

    /// `'...'`, as written.
    mutating func literalString() throws(ConfigFileSyntaxError) -> String {
        position += 1
        let start = position
        while true {
            guard let byte = peek, byte != 0x0A, byte != 0x0D else { throw error("a string is not closed") }
            if byte == UInt8(ascii: "'") {
                position += 1
                return String(decoding: bytes[start..<position - 1], as: UTF8.self)
            }
            if Self.isForbiddenControl(byte) { throw error("a control character in a string") }
            position += 1
        }
    }

    /// `"""..."""` or `'''...'''`: a newline right after the opening quotes is not part of it;
    /// in the basic form escapes apply and a backslash at the end of a line joins it to the
    /// next non-blank character.
    private mutating func multilineString(literal: Bool) throws(ConfigFileSyntaxError) -> String {
        let quote = literal ? UInt8(ascii: "'") : UInt8(ascii: "\"")
        position += 3
        _ = newline()
        var out: [UInt8] = []
        while true {
            guard let byte = peek else { throw error("a multi-line string is not closed") }
            if byte == quote, peek(1) == quote, peek(2) == quote {
                // Up to two quotes may end the content just before the closing three.
                var run = 3
                while peek(run) == quote { run += 1 }
                guard run <= 5 else { throw error("too many quotes at the end of a multi-line string") }
                out.append(contentsOf: [UInt8](repeating: quote, count: run - 3))
                position += run
                return String(decoding: out, as: UTF8.self)
            }
            if newline() {
                out.append(0x0A)
                continue
            }
            position += 1
            if byte == UInt8(ascii: "\\"), !literal {
                if try lineEndingBackslash() { continue }
                try escape(into: &out)
            } else {
                if Self.isForbiddenControl(byte) { throw error("a control character in a string") }
                out.append(byte)
            }
        }
    }

    /// After a backslash: blanks up to a newline, then every blank and newline, skipped;
    /// false (nothing consumed) when the backslash starts an escape instead.
    private mutating func lineEndingBackslash() throws(ConfigFileSyntaxError) -> Bool {
        var ahead = position
        while ahead < bytes.count, bytes[ahead] == 0x20 || bytes[ahead] == 0x09 { ahead += 1 }
        guard ahead < bytes.count,
            bytes[ahead] == 0x0A
                || (bytes[ahead] == 0x0D && ahead + 1 < bytes.count
                    && bytes[ahead + 1] == 0x0A)
        else { return false }
        position = ahead
        while true {
            skipBlanks()
            if !newline() { return true }
        }
    }

    /// The escape after a backslash (`\n`, `\"`, `\u00E9`, `\U0001F600` ...).
    private mutating func escape(into out: inout [UInt8]) throws(ConfigFileSyntaxError) {
        guard let byte = peek else { throw error("a string is not closed") }
        position += 1
        switch byte {
        case UInt8(ascii: "b"): out.append(0x08)
        case UInt8(ascii: "t"): out.append(0x09)
        case UInt8(ascii: "n"): out.append(0x0A)
        case UInt8(ascii: "f"): out.append(0x0C)
        case UInt8(ascii: "r"): out.append(0x0D)
        case UInt8(ascii: "\""): out.append(byte)
        case UInt8(ascii: "\\"): out.append(byte)
        case UInt8(ascii: "u"), UInt8(ascii: "U"):
            let count = byte == UInt8(ascii: "u") ? 4 : 8
            var value: UInt32 = 0
            for _ in 0..<count {
                guard let digit = peek.flatMap(Self.hexValue) else {
                    throw error("\\\(Character(Unicode.Scalar(byte))) needs \(count) hexadecimal digits")
                }
                value = value << 4 | UInt32(digit)
                position += 1
            }
            guard let scalar = Unicode.Scalar(value) else {
                throw error("\\\(Character(Unicode.Scalar(byte))) names no Unicode scalar value")
            }
            out.append(contentsOf: Array(String(Character(scalar)).utf8))
        default:
            position -= 1
            throw error("an unknown escape \\\(found) in a string")
        }
    }

    static func hexValue(_ byte: UInt8) -> UInt8? {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): return byte - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): return byte - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): return byte - UInt8(ascii: "A") + 10
        default: return nil
        }
    }
}

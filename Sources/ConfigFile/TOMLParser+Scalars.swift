extension TOMLParser {
    /// A boolean, an integer, a float, or a date and/or time, checked against TOML's forms.
    mutating func scalar() throws(ConfigFileSyntaxError) -> TOMLValue {
        let start = position
        while let byte = peek, Self.isScalarCharacter(byte) { position += 1 }
        // A date and a time may be separated by one space: "1979-05-27 07:32:00Z".
        if position - start == 10, peek == 0x20, let hour = peek(1), let next = peek(2), let colon = peek(3),
            Self.isDigit(hour), Self.isDigit(next), colon == UInt8(ascii: ":")
        {
            position += 1
            while let byte = peek, Self.isScalarCharacter(byte) { position += 1 }
        }
        guard position > start else { throw error("expected a value, found \(found)") }
        let token = Array(bytes[start..<position])
        if token == Array("true".utf8) || token == Array("false".utf8) { return .boolean }
        if Self.isInteger(token) { return .integer }
        if Self.isFloat(token) { return .float }
        if Self.isDateTime(token) { return .dateTime }
        position = start
        throw error("not a TOML value: \(String(decoding: token, as: UTF8.self))")
    }

    private static func isScalarCharacter(_ byte: UInt8) -> Bool {
        isBareKey(byte) || byte == UInt8(ascii: "+") || byte == UInt8(ascii: ".") || byte == UInt8(ascii: ":")
    }

    static func isDigit(_ byte: UInt8) -> Bool { byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9") }

    /// Digits of `isDigit`, with single underscores between them only.
    private static func isDigits(_ text: ArraySlice<UInt8>, _ isDigit: (UInt8) -> Bool) -> Bool {
        guard let first = text.first, let last = text.last, isDigit(first), isDigit(last) else { return false }
        var previousUnderscore = false
        for byte in text {
            if byte == UInt8(ascii: "_") {
                if previousUnderscore { return false }
                previousUnderscore = true
            } else if isDigit(byte) {
                previousUnderscore = false
            } else {
                return false
            }
        }
        return true
    }

    /// A decimal integer without leading zeros (a sign allowed), or 0x / 0o / 0b digits.
    private static func isDecimalInteger(_ text: ArraySlice<UInt8>) -> Bool {
        var digits = text
        if let sign = digits.first, sign == UInt8(ascii: "+") || sign == UInt8(ascii: "-") {
            digits = digits.dropFirst()
        }
        guard isDigits(digits, isDigit) else { return false }
        return digits.count == 1 || digits.first != UInt8(ascii: "0")
    }

    static func isInteger(_ token: [UInt8]) -> Bool {
        let text = token[...]
        if text.count > 2, text.first == UInt8(ascii: "0") {
            let body = text.dropFirst(2)
            switch text[text.startIndex + 1] {
            case UInt8(ascii: "x"): return isDigits(body) { hexValue($0) != nil }
            case UInt8(ascii: "o"): return isDigits(body) { $0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "7") }
            case UInt8(ascii: "b"): return isDigits(body) { $0 == UInt8(ascii: "0") || $0 == UInt8(ascii: "1") }
            default: break
            }
        }
        return isDecimalInteger(text)
    }

    /// An integer part, then a fraction, an exponent or both; or inf / nan with a sign or not.
    static func isFloat(_ token: [UInt8]) -> Bool {
        var text = token[...]
        let unsigned =
            text.first == UInt8(ascii: "+") || text.first == UInt8(ascii: "-") ? text.dropFirst() : text
        if unsigned.elementsEqual("inf".utf8) || unsigned.elementsEqual("nan".utf8) { return true }
        var exponent: ArraySlice<UInt8>?
        if let e = text.firstIndex(where: { $0 == UInt8(ascii: "e") || $0 == UInt8(ascii: "E") }) {
            exponent = text[(e + 1)...]
            text = text[..<e]
        }
        var fraction: ArraySlice<UInt8>?
        if let dot = text.firstIndex(of: UInt8(ascii: ".")) {
            fraction = text[(dot + 1)...]
            text = text[..<dot]
        }
        guard fraction != nil || exponent != nil, isDecimalInteger(text) else { return false }
        if let fraction, !isDigits(fraction, isDigit) { return false }
        if var exponent {
            if let sign = exponent.first, sign == UInt8(ascii: "+") || sign == UInt8(ascii: "-") {
                exponent = exponent.dropFirst()
            }
            if !isDigits(exponent, isDigit) { return false }
        }
        return true
    }

    /// RFC 3339 as TOML takes it: an offset date-time, a local date-time, a local date or a
    /// local time (T, t or one space between date and time; fractions of a second allowed).
    static func isDateTime(_ token: [UInt8]) -> Bool {
        var text = token[...]
        var hasDate = false
        if text.count >= 10, text[text.startIndex + 4] == UInt8(ascii: "-") {
            guard isDate(text.prefix(10)) else { return false }
            hasDate = true
            text = text.dropFirst(10)
            if text.isEmpty { return true }
            guard let separator = text.first,
                separator == UInt8(ascii: "T") || separator == UInt8(ascii: "t") || separator == 0x20
            else { return false }
            text = text.dropFirst()
        }
        guard text.count >= 8, isTime(text.prefix(8)) else { return false }
        text = text.dropFirst(8)
        if text.first == UInt8(ascii: ".") {
            let digits = text.dropFirst().prefix { isDigit($0) }
            guard !digits.isEmpty else { return false }
            text = text.dropFirst(1 + digits.count)
        }
        if text.isEmpty { return true }
        // An offset only after a date: a local time has none.
        guard hasDate else { return false }
        if text.count == 1 { return text.first == UInt8(ascii: "Z") || text.first == UInt8(ascii: "z") }
        guard text.count == 6, let sign = text.first, sign == UInt8(ascii: "+") || sign == UInt8(ascii: "-"),
            let hours = number(text.dropFirst().prefix(2)), text[text.startIndex + 3] == UInt8(ascii: ":"),
            let minutes = number(text.suffix(2))
        else { return false }
        return hours < 24 && minutes < 60
    }

    private static func isDate(_ text: ArraySlice<UInt8>) -> Bool {
        guard text.count == 10, number(text.prefix(4)) != nil, text[text.startIndex + 4] == UInt8(ascii: "-"),
            let month = number(text.dropFirst(5).prefix(2)), text[text.startIndex + 7] == UInt8(ascii: "-"),
            let day = number(text.suffix(2))
        else { return false }
        return (1...12).contains(month) && (1...31).contains(day)
    }

    private static func isTime(_ text: ArraySlice<UInt8>) -> Bool {
        guard text.count == 8, let hour = number(text.prefix(2)), text[text.startIndex + 2] == UInt8(ascii: ":"),
            let minute = number(text.dropFirst(3).prefix(2)), text[text.startIndex + 5] == UInt8(ascii: ":"),
            let second = number(text.suffix(2))
        else { return false }
        return hour < 24 && minute < 60 && second <= 60
    }

    /// The value of ASCII digits (all digits, at least one).
    private static func number(_ text: ArraySlice<UInt8>) -> Int? {
        guard !text.isEmpty, text.allSatisfy(isDigit) else { return nil }
        return text.reduce(0) { $0 * 10 + Int($1 - UInt8(ascii: "0")) }
    }
}

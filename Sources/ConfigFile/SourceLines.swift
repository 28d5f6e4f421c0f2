import PrintableText

/// Where keys and `[[NAME]]` headers sit in the file's text, for messages: TOMLKit gives
/// values, not their lines. Lines inside multi-line strings are not looked at.
struct SourceLines {
    /// The text of each line (1-based: index 0 is line 1), with multi-line string bodies
    /// blanked.
    let lines: [String]

    init(_ text: String) {
        var result: [String] = []
        var inMultiline: String?
        for raw in text.split(separator: "\n", omittingEmptySubsequences: false) {
            var line = String(raw)
            if let delimiter = inMultiline {
                if line.contains(delimiter) { inMultiline = nil }
                line = ""
            } else {
                for delimiter in ["\"\"\"", "\'\'\'"] where line.ranges(of: delimiter).count == 1 {
                    inMultiline = delimiter
                }
            }
            result.append(line)
        }
        lines = result
    }

    /// The lines of the `[[name]]` headers, in order.
    func arrayTableHeaders(_ name: String) -> [Int] {
        lines.indices.filter { index in
            let t = lines[index].trimmingBlanks()
            guard t.hasPrefix("[["), let close = t.firstRange(of: "]]") else { return false }
            let inner = t[t.index(t.startIndex, offsetBy: 2)..<close.lowerBound].trimmingBlanks()
            return Self.unquoted(inner) == name
        }.map { $0 + 1 }
    }

    /// The first line in [from, before) where `key` is assigned (`key =`, `"key" =`), or
    /// (with `orTable`) where `[table]` starts.
    func firstLine(ofKey key: String, orTable table: String? = nil, from: Int = 1, before: Int = Int.max) -> Int? {
        guard from <= lines.count else { return nil }
        for number in from...lines.count where number < before {
            let t = lines[number - 1].trimmingBlanks()
            if let table, t.hasPrefix("["), !t.hasPrefix("[["), let close = t.firstIndex(of: "]"),
                Self.unquoted(t[t.index(after: t.startIndex)..<close].trimmingBlanks()) == table
            {
                return number
            }
            // Keys at the start of a line, or inside an inline table on it.
            for candidate in [t[...]] + t.split(omittingEmptySubsequences: false, whereSeparator: { $0 == "{" || $0 == "," }).dropFirst() {
                guard let equals = candidate.firstIndex(of: "=") else { continue }
                if Self.unquoted(candidate[..<equals].trimmingBlanks()) == key { return number }
            }
        }
        return nil
    }

    /// A sort key for `key` on `line`: the line, then the key's offset in it.
    func offset(of key: String, onLine line: Int) -> Int {
        guard line >= 1, line <= lines.count, let range = lines[line - 1].firstRange(of: key) else { return line << 20 }
        return line << 20 + lines[line - 1].distance(from: lines[line - 1].startIndex, to: range.lowerBound)
    }

    static func unquoted(_ key: String) -> String {
        if key.count >= 2, let first = key.first, first == "\"" || first == "'", key.last == first {
            return String(key.dropFirst().dropLast())
        }
        return key
    }
}

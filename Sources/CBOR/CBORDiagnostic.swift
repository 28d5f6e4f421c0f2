/// RFC 8949 section 8 diagnostic notation, for showing what a structure holds (the decoded
/// engagement in the demo, debugging). Byte strings longer than `maxBytes` are elided.
extension CBOR {
    public func diagnostic(maxBytes: Int = 64) -> String {
        switch self {
        case .unsigned(let u): return String(u)
        case .negative(let n): return n == UInt64.max ? "-18446744073709551616" : "-\(n + 1)"
        case .bytes(let b):
            let shown = b.prefix(maxBytes).map { hexDigits($0) }.joined()
            return b.count > maxBytes ? "h'\(shown)...' (\(b.count) bytes)" : "h'\(shown)'"
        case .text(let s):
            return "\"" + s.replacing("\\", with: "\\\\").replacing("\"", with: "\\\"")
                + "\""
        case .array(let items):
            return "[" + items.map { $0.diagnostic(maxBytes: maxBytes) }.joined(separator: ", ") + "]"
        case .map(let entries):
            return "{"
                + entries.map { "\($0.key.diagnostic(maxBytes: maxBytes)): \($0.value.diagnostic(maxBytes: maxBytes))" }
                .joined(separator: ", ") + "}"
        case .tagged(let t, let v): return "\(t)(\(v.diagnostic(maxBytes: maxBytes)))"
        case .embedded(let e): return "24(<<\(e.value.diagnostic(maxBytes: maxBytes))>>)"
        case .simple(let v): return "simple(\(v))"
        case .bool(let b): return b ? "true" : "false"
        case .null: return "null"
        case .undefined: return "undefined"
        case .float(let d):
            if d.isNaN { return "NaN" }
            if d.isInfinite { return d > 0 ? "Infinity" : "-Infinity" }
            return String(d)
        }
    }
}

private func hexDigits(_ byte: UInt8) -> String {
    let digits = Array("0123456789abcdef")
    return String([digits[Int(byte >> 4)], digits[Int(byte & 0xF)]])
}

/// `application/x-www-form-urlencoded` (WHATWG URL, "urlencoded serializing/parsing"): how
/// OAuth query strings and direct_post bodies carry parameters.
public enum FormEncoding {
    /// The content type of a form body.
    public static let contentType = "application/x-www-form-urlencoded"

    /// `name=value&...`, UTF-8, every byte outside `A-Z a-z 0-9 * - . _` percent-encoded and
    /// spaces as `+`.
    public static func encode(_ fields: [(name: String, value: String)]) -> String {
        fields.map { escape($0.name) + "=" + escape($0.value) }.joined(separator: "&")
    }

    /// One name or value, percent-encoded.
    public static func escape(_ text: String) -> String {
        let hex = Array("0123456789ABCDEF".utf8)
        var out: [UInt8] = []
        for byte in text.utf8 {
            switch byte {
            case UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "a")...UInt8(ascii: "z"),
                UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "*"), UInt8(ascii: "-"), UInt8(ascii: "."),
                UInt8(ascii: "_"):
                out.append(byte)
            case UInt8(ascii: " "):
                out.append(UInt8(ascii: "+"))
            default:
                out += [UInt8(ascii: "%"), hex[Int(byte >> 4)], hex[Int(byte & 0x0F)]]
            }
        }
        return String(decoding: out, as: UTF8.self)
    }

    /// Splits `name=value&...` into pairs, in order (`+` is a space, `%XX` a byte). Returns
    /// nil when a percent escape is broken or the bytes are not UTF-8.
    public static func decode(_ text: some StringProtocol) -> [(name: String, value: String)]? {
        let text = Substring(text)
        var pairs: [(name: String, value: String)] = []
        for piece in text.split(separator: "&", omittingEmptySubsequences: true) {
            let name: Substring
            let value: Substring
            if let equals = piece.firstIndex(of: "=") {
                name = piece[..<equals]
                value = piece[piece.index(after: equals)...]
            } else {
                name = piece
                value = ""
            }
            guard let decodedName = unescape(name), let decodedValue = unescape(value) else { return nil }
            pairs.append((decodedName, decodedValue))
        }
        return pairs
    }

    static func unescape(_ text: Substring) -> String? {
        var out: [UInt8] = []
        var bytes = Array(text.utf8)[...]
        while let byte = bytes.popFirst() {
            switch byte {
            case UInt8(ascii: "+"):
                out.append(UInt8(ascii: " "))
            case UInt8(ascii: "%"):
                guard bytes.count >= 2, let high = hexValue(bytes.popFirst()!), let low = hexValue(bytes.popFirst()!)
                else { return nil }
                out.append(high << 4 | low)
            default:
                out.append(byte)
            }
        }
        return String(validating: out, as: UTF8.self)
    }

    static func hexValue(_ c: UInt8) -> UInt8? {
        switch c {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): return c - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): return c - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): return c - UInt8(ascii: "A") + 10
        default: return nil
        }
    }
}

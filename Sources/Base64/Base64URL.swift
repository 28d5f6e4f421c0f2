import FoundationEssentials

/// base64url without padding (RFC 4648 section 5), as the `mdoc:` URI (ISO 18013-5) and the
/// JOSE compact forms (RFC 7515 section 2) write it. Decoding is strict: no padding unless the
/// caller allows it, nothing outside the URL-safe alphabet.
public enum Base64URL {
    /// The base64url text of `bytes`, without padding.
    public static func encode(_ bytes: [UInt8]) -> String {
        // Straight to the URL-safe alphabet: Foundation's base64 followed by character
        // replacements took milliseconds on a 64 KiB vp_token.
        let count = bytes.count
        let full = count / 3
        let rest = count % 3
        return String(unsafeUninitializedCapacity: full * 4 + (rest == 0 ? 0 : rest + 1)) { output in
            var o = 0
            var i = 0
            for _ in 0..<full {
                let n = UInt32(bytes[i]) << 16 | UInt32(bytes[i + 1]) << 8 | UInt32(bytes[i + 2])
                output[o] = alphabet[Int(n >> 18)]
                output[o + 1] = alphabet[Int(n >> 12 & 63)]
                output[o + 2] = alphabet[Int(n >> 6 & 63)]
                output[o + 3] = alphabet[Int(n & 63)]
                i += 3
                o += 4
            }
            if rest > 0 {
                let n = UInt32(bytes[i]) << 16 | (rest == 2 ? UInt32(bytes[i + 1]) << 8 : 0)
                output[o] = alphabet[Int(n >> 18)]
                output[o + 1] = alphabet[Int(n >> 12 & 63)]
                o += 2
                if rest == 2 {
                    output[o] = alphabet[Int(n >> 6 & 63)]
                    o += 1
                }
            }
            return o
        }
    }

    private static let alphabet: [UInt8] = Array(
        "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_".utf8)

    /// The bytes of unpadded base64url `text`; nil for padding, characters outside
    /// `A-Z a-z 0-9 - _`, or an impossible length. Inlinable, so that callers in other modules
    /// get it specialised for their String or Substring (unspecialised, every byte of a JWS went
    /// through a generic iterator: +20 us on a Request Object with an x5c chain).
    @inlinable
    public static func decode(_ text: some StringProtocol) -> [UInt8]? {
        var standard: [UInt8] = []
        standard.reserveCapacity(text.utf8.count + 3)
        for byte in text.utf8 {
            switch byte {
            case UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "a")...UInt8(ascii: "z"),
                UInt8(ascii: "0")...UInt8(ascii: "9"):
                standard.append(byte)
            case UInt8(ascii: "-"): standard.append(UInt8(ascii: "+"))
            case UInt8(ascii: "_"): standard.append(UInt8(ascii: "/"))
            default: return nil
            }
        }
        switch standard.count % 4 {
        case 1: return nil
        case 2: standard += [UInt8(ascii: "="), UInt8(ascii: "=")]
        case 3: standard.append(UInt8(ascii: "="))
        default: break
        }
        return Data(base64Encoded: Data(standard)).map { [UInt8]($0) }
    }

    /// ``decode(_:)`` of `text` with the `=` padding at its end that some writers add (text a
    /// user pastes, an `mdoc:` URI from elsewhere) taken off first.
    public static func decode(allowingPadding text: some StringProtocol) -> [UInt8]? {
        var unpadded = Substring(text)
        while unpadded.hasSuffix("=") { unpadded.removeLast() }
        return decode(unpadded)
    }
}

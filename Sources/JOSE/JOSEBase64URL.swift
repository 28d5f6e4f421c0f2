import Foundation

/// base64url without padding (RFC 7515 section 2), strict: the JOSE compact forms allow
/// neither padding nor characters outside the URL-safe alphabet.
public enum JOSEBase64URL {
    /// The base64url text of `bytes`, without padding.
    public static func encode(_ bytes: [UInt8]) -> String {
        var text = Data(bytes).base64EncodedString()
        text = text.replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_")
        while text.hasSuffix("=") { text.removeLast() }
        return text
    }

    /// The bytes of unpadded base64url `text`; nil for padding, characters outside
    /// `A-Z a-z 0-9 - _`, or an impossible length.
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
}

/// PEM armour (RFC 7468) for DER values.
enum PEMEncoding {
    private static let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/".utf8)

    /// `-----BEGIN label-----`, base64 in 64-character lines, `-----END label-----`, with a
    /// final newline.
    static func encode(_ der: [UInt8], label: String) -> String {
        var base64: [UInt8] = []
        base64.reserveCapacity((der.count + 2) / 3 * 4)
        var i = 0
        while i < der.count {
            let b0 = Int(der[i])
            let b1 = i + 1 < der.count ? Int(der[i + 1]) : 0
            let b2 = i + 2 < der.count ? Int(der[i + 2]) : 0
            base64.append(alphabet[b0 >> 2])
            base64.append(alphabet[(b0 & 0x03) << 4 | b1 >> 4])
            base64.append(i + 1 < der.count ? alphabet[(b1 & 0x0f) << 2 | b2 >> 6] : UInt8(ascii: "="))
            base64.append(i + 2 < der.count ? alphabet[b2 & 0x3f] : UInt8(ascii: "="))
            i += 3
        }
        var lines = ["-----BEGIN \(label)-----"]
        var start = 0
        while start < base64.count {
            let end = min(start + 64, base64.count)
            lines.append(String(decoding: base64[start..<end], as: UTF8.self))
            start = end
        }
        lines.append("-----END \(label)-----")
        return lines.joined(separator: "\n") + "\n"
    }
}

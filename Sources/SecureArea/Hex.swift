/// Lowercase hexadecimal, two digits per byte: key IDs, the KEK file, PKCS#11 URIs.
enum Hex {
    private static let digits = Array("0123456789abcdef".utf8)

    /// The ASCII digits of `bytes` (a secret can be written from them and wiped after, which
    /// a `String` does not allow).
    static func digits(_ bytes: some Collection<UInt8>) -> [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(bytes.count * 2)
        for byte in bytes {
            out.append(digits[Int(byte >> 4)])
            out.append(digits[Int(byte & 0xF)])
        }
        return out
    }

    static func text(_ bytes: some Collection<UInt8>) -> String {
        String(decoding: digits(bytes), as: UTF8.self)
    }
}

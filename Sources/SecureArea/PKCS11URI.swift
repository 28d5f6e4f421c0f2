/// The parts of an RFC 7512 PKCS#11 URI this program writes and reads:
/// `pkcs11:token=LABEL;id=%01%02;object=NAME;type=private`.
struct PKCS11URI: CustomStringConvertible {
    var token: String
    var id: [UInt8]
    var object: String

    init(token: String, id: [UInt8], object: String) {
        self.token = token
        self.id = id
        self.object = object
    }

    init?(_ text: String) {
        guard text.hasPrefix("pkcs11:") else { return nil }
        var attributes: [String: [UInt8]] = [:]
        for part in text.dropFirst("pkcs11:".count).split(separator: ";") {
            let pair = part.split(separator: "=", maxSplits: 1)
            guard pair.count == 2, let value = Self.decode(String(pair[1])) else { return nil }
            attributes[String(pair[0])] = value
        }
        guard let token = attributes["token"], let id = attributes["id"] else { return nil }
        self.token = String(decoding: token, as: UTF8.self)
        self.id = id
        self.object = String(decoding: attributes["object"] ?? [], as: UTF8.self)
    }

    var description: String {
        "pkcs11:token=\(Self.encode(Array(token.utf8)));id=\(id.map { "%" + Hex.text([$0]) }.joined());"
            + "object=\(Self.encode(Array(object.utf8)));type=private"
    }

    private static func encode(_ bytes: [UInt8]) -> String {
        bytes.map { byte in
            let unreserved =
                (0x30...0x39).contains(byte) || (0x41...0x5A).contains(byte) || (0x61...0x7A).contains(byte)
                || [0x2D, 0x2E, 0x5F, 0x7E].contains(byte)
            return unreserved ? String(UnicodeScalar(byte)) : "%" + Hex.text([byte])
        }.joined()
    }

    private static func decode(_ text: String) -> [UInt8]? {
        var out: [UInt8] = []
        var bytes = Array(text.utf8)[...]
        while let first = bytes.first {
            if first == 0x25 {
                guard bytes.count >= 3,
                    let value = UInt8(String(decoding: bytes.dropFirst().prefix(2), as: UTF8.self), radix: 16)
                else { return nil }
                out.append(value)
                bytes = bytes.dropFirst(3)
            } else {
                out.append(first)
                bytes = bytes.dropFirst()
            }
        }
        return out
    }
}

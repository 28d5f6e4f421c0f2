/// The parts of a DER PKCS#8 PrivateKeyInfo (RFC 5958) in the form OpenSSL writes it, found
/// without OpenSSL's generic decoder (which costs OpenSSL 3.0 tens of ECDSA signatures):
///
/// ```
/// PrivateKeyInfo ::= SEQUENCE { version INTEGER, privateKeyAlgorithm AlgorithmIdentifier,
///                               privateKey OCTET STRING, [0] attributes OPTIONAL, ... }
/// EC2: privateKey = ECPrivateKey ::= SEQUENCE { version INTEGER (1), privateKey OCTET STRING,
///                               [0] parameters OPTIONAL, [1] publicKey BIT STRING OPTIONAL }
/// OKP: privateKey = CurvePrivateKey ::= OCTET STRING
/// ```
/// Anything else (another layout, an EC key without its public point) gives nil: the caller
/// then reads the key the generic way. Offsets are into the array given, which holds key
/// material: nothing here copies it.
struct PKCS8Layout {
    /// The AlgorithmIdentifier, whole (tag and length included), as in a SubjectPublicKeyInfo.
    let algorithm: Range<Int>
    /// EC2: the big-endian scalar d; OKP: the raw private key.
    let privateKey: Range<Int>
    /// EC2: the uncompressed point; nil for OKP.
    let publicPoint: Range<Int>?

    init?(_ der: [UInt8]) {
        var outer = DERCursor(der, der.indices)
        guard let info = outer.next(tag: 0x30), outer.isAtEnd else { return nil }
        var fields = DERCursor(der, info.content)
        guard fields.next(tag: 0x02) != nil, let algorithm = fields.next(tag: 0x30),
            let privateKey = fields.next(tag: 0x04)
        else { return nil }
        self.algorithm = algorithm.whole
        var inner = DERCursor(der, privateKey.content)
        if let okp = inner.next(tag: 0x04), inner.isAtEnd {
            self.privateKey = okp.content
            self.publicPoint = nil
            return
        }
        inner = DERCursor(der, privateKey.content)
        guard let ecPrivateKey = inner.next(tag: 0x30), inner.isAtEnd else { return nil }
        var ec = DERCursor(der, ecPrivateKey.content)
        guard let version = ec.next(tag: 0x02), version.content.count == 1, der[version.content.lowerBound] == 1,
            let scalar = ec.next(tag: 0x04)
        else { return nil }
        _ = ec.next(tag: 0xA0)
        guard let wrapped = ec.next(tag: 0xA1), ec.isAtEnd else { return nil }
        var publicKey = DERCursor(der, wrapped.content)
        guard let bits = publicKey.next(tag: 0x03), publicKey.isAtEnd, bits.content.count > 1,
            der[bits.content.lowerBound] == 0
        else { return nil }
        self.privateKey = scalar.content
        self.publicPoint = (bits.content.lowerBound + 1)..<bits.content.upperBound
    }
}

/// Walks the DER elements of one level of `bytes[range]`: tag, definite length, content.
struct DERCursor {
    struct Element {
        let whole: Range<Int>
        let content: Range<Int>
    }

    private let bytes: [UInt8]
    private var position: Int
    private let end: Int

    init(_ bytes: [UInt8], _ range: Range<Int>) {
        self.bytes = bytes
        self.position = range.lowerBound
        self.end = range.upperBound
    }

    var isAtEnd: Bool { position == end }

    /// The next element when its tag is `tag` (the cursor moves past it), else nil (it does not).
    mutating func next(tag: UInt8) -> Element? {
        let start = position
        guard start + 2 <= end, bytes[start] == tag else { return nil }
        var length = Int(bytes[start + 1])
        var header = 2
        if length & 0x80 != 0 {
            let octets = length & 0x7F
            guard (1...3).contains(octets), start + 2 + octets <= end else { return nil }
            length = 0
            for i in 0..<octets { length = length << 8 | Int(bytes[start + 2 + i]) }
            header += octets
        }
        guard start + header + length <= end else { return nil }
        position = start + header + length
        return Element(whole: start..<position, content: (start + header)..<position)
    }
}

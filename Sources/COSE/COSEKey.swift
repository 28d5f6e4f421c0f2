import CBOR
import MdocCrypto

/// A public COSE_Key (RFC 9052 section 7): EC2 (kty 2) or OKP (kty 1).
public struct COSEKey: Sendable, Hashable {
    public let curve: Curve
    /// EC2 x coordinate, or the OKP public key.
    public let x: [UInt8]
    /// EC2 y coordinate; nil for OKP.
    public let y: [UInt8]?

    public init(_ key: PublicKey) {
        curve = key.curve
        x = key.x
        y = key.y
    }

    /// Reads a COSE_Key map. Private parts (-4) are ignored: keys never travel with them.
    public init(cbor: CBOR) throws(COSEError) {
        guard case .map = cbor else { throw .malformed("COSE_Key is not a map") }
        guard let kty = cbor[intKey: 1]?.intValue else { throw .invalidKey("missing kty") }
        guard let crvId = cbor[intKey: -1]?.intValue, let crv = Curve(coseIdentifier: crvId) else {
            throw .invalidKey("missing or unsupported crv")
        }
        guard let x = cbor[intKey: -2]?.bytesValue else { throw .invalidKey("missing x") }
        switch kty {
        case 2:
            guard !crv.isOKP else { throw .invalidKey("curve \(crv.rawValue) is not an EC2 curve") }
            guard let y = cbor[intKey: -3]?.bytesValue else {
                throw .invalidKey("missing y (compressed points are not supported)")
            }
            // RFC 9053 section 2.1 keeps leading zero octets, but some issuers (pymdoccbor)
            // drop them, in about 1 key in 128: the same point, left-padded here.
            guard (1...crv.coordinateSize).contains(x.count), (1...crv.coordinateSize).contains(y.count) else {
                throw .invalidKey("coordinates of the wrong length for \(crv.rawValue)")
            }
            self.y = Self.leftPadded(y, crv.coordinateSize)
            self.curve = crv
            self.x = Self.leftPadded(x, crv.coordinateSize)
            return
        case 1:
            guard crv.isOKP else { throw .invalidKey("curve \(crv.rawValue) is not an OKP curve") }
            guard x.count == crv.coordinateSize else {
                throw .invalidKey("key of the wrong length for \(crv.rawValue)")
            }
            self.y = nil
        default:
            throw .invalidKey("unsupported kty \(kty)")
        }
        self.curve = crv
        self.x = x
    }

    private static func leftPadded(_ bytes: [UInt8], _ size: Int) -> [UInt8] {
        [UInt8](repeating: 0, count: size - bytes.count) + bytes
    }

    public init(bytes: [UInt8]) throws(COSEError) {
        let value: CBOR
        do {
            value = try CBOR.decode(bytes)
        } catch {
            throw .malformed("COSE_Key is not well-formed CBOR (\(error))")
        }
        try self.init(cbor: value)
    }

    /// The map, keys in the order kty, crv, x, y (as the standard's examples write them).
    public var cbor: CBOR {
        var entries: [(CBOR, CBOR)] = [(1, curve.isOKP ? 1 : 2), (-1, .int(curve.coseIdentifier)), (-2, .bytes(x))]
        if let y { entries.append((-3, .bytes(y))) }
        return .orderedMap(entries)
    }

    /// The key as an OpenSSL-backed public key (checks the point is on the curve).
    public func publicKey() throws(COSEError) -> PublicKey {
        do {
            return try PublicKey(curve: curve, x: x, y: y)
        } catch {
            throw .crypto(error)
        }
    }
}

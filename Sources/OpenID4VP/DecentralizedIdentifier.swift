import Base64
import JOSE
import MdocCrypto

/// The DID methods that resolve without a network: `did:key` (multibase base58btc `z`,
/// multicodec Ed25519 0xed, P-256 0x1200 and P-384 0x1201 with compressed points) and
/// `did:jwk` (a base64url JWK). `did:web` and the others need HTTP and are not supported.
enum DecentralizedIdentifier {
    /// The verification key of `did`.
    ///
    /// - Throws: `invalid_request` for another method or a DID that does not decode to a
    ///   signing key.
    static func publicKey(of did: String) throws(AuthorizationError) -> PublicKey {
        if did.hasPrefix("did:key:") {
            return try keyFromDIDKey(String(did.dropFirst("did:key:".count)))
        }
        if did.hasPrefix("did:jwk:") {
            let encoded = did.dropFirst("did:jwk:".count)
            guard let json = Base64URL.decode(encoded), let jwk = try? JWK(json: JSONValue(parsing: json)) else {
                throw .invalidRequest("the did:jwk does not hold a JWK")
            }
            guard jwk.use != "enc", jwk.curve.supportsSigning else {
                throw .invalidRequest("the did:jwk key is not a signing key")
            }
            do {
                return try jwk.publicKey()
            } catch {
                throw .invalidRequest("the did:jwk key is unusable")
            }
        }
        throw .invalidRequest("only did:key and did:jwk decentralized identifiers are supported")
    }

    /// Whether a JWS `kid` refers to `did` (`did#fragment`); an absent kid is accepted, as
    /// these methods have exactly one key.
    static func keyIDMatches(_ keyID: String?, did: String) -> Bool {
        guard let keyID else { return true }
        if keyID.hasPrefix("#") { return true }
        return keyID.split(separator: "#", maxSplits: 1, omittingEmptySubsequences: false)[0] == did
    }

    private static func keyFromDIDKey(_ multibase: String) throws(AuthorizationError) -> PublicKey {
        guard multibase.first == "z", multibase.count <= 200, let decoded = base58btc(multibase.dropFirst()) else {
            throw .invalidRequest("the did:key is not base58btc multibase")
        }
        var bytes = decoded[...]
        var codec: UInt64 = 0
        var shift: UInt64 = 0
        while true {
            guard let byte = bytes.popFirst(), shift < 63 else {
                throw .invalidRequest("the did:key multicodec is bad")
            }
            codec |= UInt64(byte & 0x7F) << shift
            if byte & 0x80 == 0 { break }
            shift += 7
        }
        let key = Array(bytes)
        do {
            switch codec {
            case 0xED:
                return try PublicKey(curve: .ed25519, raw: key)
            case 0x1200:
                return try compressed(key, curve: .p256)
            case 0x1201:
                return try compressed(key, curve: .p384)
            default:
                throw AuthorizationError.invalidRequest("the did:key key type is not supported")
            }
        } catch let error as AuthorizationError {
            throw error
        } catch {
            throw .invalidRequest("the did:key key is unusable")
        }
    }

    /// A compressed EC point as a SubjectPublicKeyInfo, which OpenSSL decompresses.
    private static func compressed(_ point: [UInt8], curve: Curve) throws -> PublicKey {
        let algorithm: [UInt8]
        switch curve {
        case .p256:
            algorithm = [
                0x30, 0x13, 0x06, 0x07, 0x2A, 0x86, 0x48, 0xCE, 0x3D, 0x02, 0x01, 0x06, 0x08, 0x2A, 0x86, 0x48, 0xCE,
                0x3D, 0x03, 0x01, 0x07,
            ]
        default:
            algorithm = [
                0x30, 0x10, 0x06, 0x07, 0x2A, 0x86, 0x48, 0xCE, 0x3D, 0x02, 0x01, 0x06, 0x05, 0x2B, 0x81, 0x04, 0x00,
                0x22,
            ]
        }
        guard point.count == curve.coordinateSize + 1, point[0] == 0x02 || point[0] == 0x03 else {
            throw AuthorizationError.invalidRequest("the did:key point is not compressed")
        }
        let bitString: [UInt8] = [0x03, UInt8(point.count + 1), 0x00] + point
        let body = algorithm + bitString
        return try PublicKey(subjectPublicKeyInfoDER: [0x30, UInt8(body.count)] + body)
    }

    /// Base58 with the Bitcoin alphabet; nil for another character.
    static func base58btc(_ text: Substring) -> [UInt8]? {
        let alphabet = Array("123456789ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz".utf8)
        var table = [Int](repeating: -1, count: 128)
        for (i, c) in alphabet.enumerated() { table[Int(c)] = i }
        var result: [UInt8] = []  // big number, little-endian bytes
        var leadingZeros = 0
        var seenNonZero = false
        for c in text.utf8 {
            guard c < 128, table[Int(c)] >= 0 else { return nil }
            let digit = table[Int(c)]
            if digit == 0, !seenNonZero {
                leadingZeros += 1
                continue
            }
            seenNonZero = true
            var carry = digit
            for i in result.indices {
                carry += Int(result[i]) * 58
                result[i] = UInt8(carry & 0xFF)
                carry >>= 8
            }
            while carry > 0 {
                result.append(UInt8(carry & 0xFF))
                carry >>= 8
            }
        }
        return [UInt8](repeating: 0, count: leadingZeros) + result.reversed()
    }
}

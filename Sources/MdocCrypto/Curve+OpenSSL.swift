internal import COpenSSL

extension Curve {
    /// OpenSSL's key type name, for `EVP_PKEY_CTX_new_from_name` and `EVP_PKEY_is_a`.
    var opensslKeyType: String {
        switch self {
        case .x25519: return "X25519"
        case .x448: return "X448"
        case .ed25519: return "ED25519"
        case .ed448: return "ED448"
        default: return "EC"
        }
    }

    /// OpenSSL's group name for an EC2 curve; `nil` for OKP curves.
    var opensslGroupName: String? {
        switch self {
        case .p256: return "prime256v1"
        case .p384: return "secp384r1"
        case .p521: return "secp521r1"
        case .brainpoolP256r1: return "brainpoolP256r1"
        case .brainpoolP320r1: return "brainpoolP320r1"
        case .brainpoolP384r1: return "brainpoolP384r1"
        case .brainpoolP512r1: return "brainpoolP512r1"
        default: return nil
        }
    }

    /// OpenSSL's NID for an EC2 curve's group; `nil` for OKP curves.
    var opensslGroupNID: Int32? {
        switch self {
        case .p256: return NID_X9_62_prime256v1
        case .p384: return NID_secp384r1
        case .p521: return NID_secp521r1
        case .brainpoolP256r1: return NID_brainpoolP256r1
        case .brainpoolP320r1: return NID_brainpoolP320r1
        case .brainpoolP384r1: return NID_brainpoolP384r1
        case .brainpoolP512r1: return NID_brainpoolP512r1
        default: return nil
        }
    }

    /// The curve of an OpenSSL key.
    static func of(_ pkey: OpaquePointer) throws(CryptoError) -> Curve {
        // EC first: the keys of nearly every call (each name tried is a lookup).
        guard EVP_PKEY_is_a(pkey, "EC") == 1 else {
            for okp in [Curve.x25519, .x448, .ed25519, .ed448] where EVP_PKEY_is_a(pkey, okp.opensslKeyType) == 1 {
                return okp
            }
            throw .unsupportedCurve("the key is not an EC, X25519, X448, Ed25519 or Ed448 key")
        }
        var name = [CChar](repeating: 0, count: 80)
        var length = 0
        let found = name.withUnsafeMutableBufferPointer { buffer in
            EVP_PKEY_get_group_name(pkey, buffer.baseAddress, buffer.count, &length) == 1
        }
        guard found else {
            clearOpenSSLErrors()
            throw .unsupportedCurve("the EC key does not use a named curve")
        }
        let group = String(decoding: name.prefix(length).map { UInt8(bitPattern: $0) }, as: UTF8.self)
        let aliases = ["P-256": Curve.p256, "secp256r1": .p256, "P-384": .p384, "P-521": .p521]
        if let curve = Curve.allCases.first(where: { $0.opensslGroupName == group }) ?? aliases[group] {
            return curve
        }
        throw .unsupportedCurve("EC group \(group) is not supported")
    }
}

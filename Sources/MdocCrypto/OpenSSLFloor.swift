internal import COpenSSL

/// OpenSSL's own cost for each primitive the holder, the reader and the online flow use: direct
/// EVP calls on prepared keys with every algorithm fetched beforehand, none of this module's
/// types in between. The benchmark prints our wrapper's figures beside these, so the ratio
/// shows what the wrapper adds. Benchmarks only; nothing else uses it.
///
/// Each call does one complete operation (context made, used and freed, as a real caller must)
/// on P-256 with SHA-256 and AES-256-GCM. A failure stops the process: a benchmark whose floor
/// cannot run has nothing to print.
public final class OpenSSLFloor: @unchecked Sendable {
    private let parameters: OpaquePointer
    private let keyPair: OpaquePointer
    private let peer: OpaquePointer
    private let message: [UInt8]
    private let derSignature: [UInt8]

    public init() throws(CryptoError) {
        guard let parameters = try CurveTemplate.of(.p256).parameters else { throw .fromOpenSSL("P-256 template") }
        self.parameters = parameters
        guard EVP_PKEY_up_ref(parameters) == 1 else { throw .fromOpenSSL("EVP_PKEY_up_ref") }
        keyPair = try Self.generate(from: parameters)
        peer = try Self.generate(from: parameters)
        message = SecureRandom.bytes(200)
        derSignature = try Self.sign(message, key: keyPair)
    }

    deinit {
        EVP_PKEY_free(parameters)
        EVP_PKEY_free(keyPair)
        EVP_PKEY_free(peer)
    }

    private static func generate(from parameters: OpaquePointer) throws(CryptoError) -> OpaquePointer {
        guard let context = EVP_PKEY_CTX_new_from_pkey(nil, parameters, nil) else { throw .fromOpenSSL("ctx") }
        defer { EVP_PKEY_CTX_free(context) }
        var key: OpaquePointer?
        guard EVP_PKEY_keygen_init(context) == 1, EVP_PKEY_generate(context, &key) == 1, let key else {
            throw .fromOpenSSL("EVP_PKEY_generate")
        }
        return key
    }

    private static func sign(_ message: [UInt8], key: OpaquePointer) throws(CryptoError) -> [UInt8] {
        guard let context = EVP_MD_CTX_new() else { throw .fromOpenSSL("EVP_MD_CTX_new") }
        defer { EVP_MD_CTX_free(context) }
        var length = 80
        var signature = [UInt8](repeating: 0, count: length)
        guard EVP_DigestSignInit(context, nil, FetchedAlgorithms.sha256, nil, key) == 1,
            EVP_DigestSign(context, &signature, &length, message, message.count) == 1
        else { throw .fromOpenSSL("EVP_DigestSign") }
        return Array(signature.prefix(length))
    }

    /// A P-256 key pair from the prepared group.
    public func generateKey() {
        guard let key = try? Self.generate(from: parameters) else { preconditionFailure("floor: key generation") }
        EVP_PKEY_free(key)
    }

    /// One ECDH on P-256 (the peer already validated, as ours is).
    public func ecdh() {
        guard let context = EVP_PKEY_CTX_new_from_pkey(nil, keyPair, nil) else { preconditionFailure("floor: ctx") }
        defer { EVP_PKEY_CTX_free(context) }
        var secret = [UInt8](repeating: 0, count: 32)
        var length = secret.count
        guard EVP_PKEY_derive_init(context) == 1, EVP_PKEY_derive_set_peer_ex(context, peer, 0) == 1,
            EVP_PKEY_derive(context, &secret, &length) == 1
        else { preconditionFailure("floor: ECDH") }
    }

    /// One ECDSA P-256 / SHA-256 signature (DER, as OpenSSL makes it).
    public func ecdsaSign() {
        guard (try? Self.sign(message, key: keyPair)) != nil else { preconditionFailure("floor: sign") }
    }

    /// One ECDSA P-256 / SHA-256 verification.
    public func ecdsaVerify() {
        guard let context = EVP_MD_CTX_new() else { preconditionFailure("floor: EVP_MD_CTX_new") }
        defer { EVP_MD_CTX_free(context) }
        guard EVP_DigestVerifyInit(context, nil, FetchedAlgorithms.sha256, nil, keyPair) == 1,
            EVP_DigestVerify(context, derSignature, derSignature.count, message, message.count) == 1
        else { preconditionFailure("floor: verify") }
    }

    /// One HKDF-SHA256 derivation of 32 bytes.
    public func hkdf(ikm: [UInt8], salt: [UInt8], info: [UInt8]) {
        guard let context = EVP_KDF_CTX_new(FetchedAlgorithms.hkdf) else { preconditionFailure("floor: HKDF") }
        defer { EVP_KDF_CTX_free(context) }
        var output = [UInt8](repeating: 0, count: 32)
        let ok = ikm.withUnsafeBytes { k in
            salt.withUnsafeBytes { s in
                info.withUnsafeBytes { i in
                    let params = OSSLParamList()
                    params.addUTF8("digest", "SHA2-256")
                    params.addOctets("key", k)
                    params.addOctets("salt", s)
                    params.addOctets("info", i)
                    return params.withParams { EVP_KDF_derive(context, &output, output.count, $0) }
                }
            }
        }
        precondition(ok == 1, "floor: HKDF")
    }

    /// AES-256-GCM over `input` (sealing, or opening without the tag check when `seal` is
    /// false: the same cipher work).
    public func aesGCM(_ input: [UInt8], key: [UInt8], iv: [UInt8], seal: Bool) {
        guard let context = EVP_CIPHER_CTX_new() else { preconditionFailure("floor: EVP_CIPHER_CTX_new") }
        defer { EVP_CIPHER_CTX_free(context) }
        var output = [UInt8](repeating: 0, count: input.count + 16)
        var length: Int32 = 0
        let ok =
            EVP_CipherInit_ex(context, FetchedAlgorithms.aes256GCM, nil, key, iv, seal ? 1 : 0) == 1
            && EVP_CipherUpdate(context, &output, &length, input, Int32(input.count)) == 1
        precondition(ok, "floor: AES-GCM")
        if seal {
            var tag = [UInt8](repeating: 0, count: 16)
            precondition(EVP_CipherFinal_ex(context, &tag, &length) == 1, "floor: AES-GCM final")
            precondition(EVP_CIPHER_CTX_ctrl(context, EVP_CTRL_GCM_GET_TAG, 16, &tag) == 1, "floor: GCM tag")
        }
    }

    /// One SHA-256 over `input`.
    public func sha256(_ input: [UInt8]) {
        var output = [UInt8](repeating: 0, count: 32)
        var length: UInt32 = 0
        precondition(EVP_Digest(input, input.count, &output, &length, FetchedAlgorithms.sha256, nil) == 1)
    }
}

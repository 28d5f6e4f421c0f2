internal import COpenSSL

/// A private key on one of the supported ``Curve``s. Owns an OpenSSL `EVP_PKEY`, which is freed
/// on deinit (OpenSSL clears the secret when it frees the key).
///
/// Sendable: the object is immutable after initialization, and OpenSSL 3 key objects may be used
/// read-only from several threads at once (each operation makes its own context).
public final class PrivateKey: @unchecked Sendable, CustomStringConvertible {
    /// The key's curve.
    public let curve: Curve
    /// The matching public key.
    public let publicKey: PublicKey
    /// The OpenSSL key (private and public parts).
    let pkey: OpaquePointer
    /// The provider that holds the key when it is not OpenSSL's default one (a TPM through the
    /// tpm2 provider): operations fetch their algorithms from it. Kept so it outlives the key.
    let provider: OpenSSLProvider?

    /// Takes ownership of `pkey`, which is freed even if this throws. With `checkPair`, the
    /// public part must match the private part (for keys read from outside).
    init(
        adopting pkey: OpaquePointer, checkPair: Bool, provider: OpenSSLProvider? = nil, curve known: Curve? = nil,
        publicKey knownPublicKey: PublicKey? = nil
    ) throws(CryptoError) {
        do throws(CryptoError) {
            let curve: Curve
            if let known { curve = known } else { curve = try Curve.of(pkey) }
            if checkPair, !EVPKeyCoding.keyPairIsConsistent(pkey) {
                throw CryptoError.invalidKey("the \(curve.rawValue) public key does not match the private key")
            }
            if let knownPublicKey {
                self.publicKey = knownPublicKey
            } else {
                self.publicKey = try PublicKey(copying: pkey, curve: curve)
            }
            self.curve = curve
            self.pkey = pkey
            self.provider = provider
        } catch {
            EVP_PKEY_free(pkey)
            throw error
        }
    }

    deinit {
        EVP_PKEY_free(pkey)
    }

    /// A new random key on `curve`.
    public static func generate(_ curve: Curve) throws(CryptoError) -> PrivateKey {
        // EC2: generated from the curve template's group (not a group built again by name).
        let template = try CurveTemplate.of(curve).parameters
        let made =
            template.map { EVP_PKEY_CTX_new_from_pkey(nil, $0, nil) }
            ?? EVP_PKEY_CTX_new_from_name(nil, curve.opensslKeyType, nil)
        guard let context = made else { throw .fromOpenSSL("EVP_PKEY_CTX_new (\(curve.rawValue) key generation)") }
        defer { EVP_PKEY_CTX_free(context) }
        guard EVP_PKEY_keygen_init(context) == 1 else { throw .fromOpenSSL("EVP_PKEY_keygen_init") }
        var pkey: OpaquePointer?
        guard EVP_PKEY_generate(context, &pkey) == 1, let pkey else {
            EVP_PKEY_free(pkey)
            throw .fromOpenSSL("EVP_PKEY_generate(\(curve.rawValue))")
        }
        return try PrivateKey(adopting: pkey, checkPair: false, curve: curve)
    }

    /// A key from its raw private value.
    ///
    /// - Parameter rawPrivateKey: EC2: the big-endian scalar d, ``Curve/coordinateSize`` bytes
    ///   (shorter values are left-padded with zeros); it must be in [1, n-1]. OKP: the raw
    ///   private key, exactly ``Curve/coordinateSize`` bytes.
    /// - Throws: ``CryptoError/invalidLength(_:)`` or ``CryptoError/invalidKey(_:)``.
    public convenience init(curve: Curve, rawPrivateKey: [UInt8]) throws(CryptoError) {
        if curve.isOKP {
            guard rawPrivateKey.count == curve.coordinateSize else {
                throw .invalidLength(
                    "\(curve.rawValue) private keys are \(curve.coordinateSize) bytes, not \(rawPrivateKey.count)")
            }
            guard
                let pkey = EVP_PKEY_new_raw_private_key_ex(
                    nil, curve.opensslKeyType, nil, rawPrivateKey, rawPrivateKey.count)
            else {
                throw .invalidKey("OpenSSL rejected the \(curve.rawValue) private key (\(drainOpenSSLErrors()))")
            }
            try self.init(adopting: pkey, checkPair: false)
        } else {
            try self.init(adopting: ECPrivateScalar.makeKey(curve: curve, scalar: rawPrivateKey), checkPair: false)
        }
    }

    /// Whether the private key lives outside this process's memory (in a TPM, through a
    /// provider): it cannot be exported.
    public var isProviderHeld: Bool { provider != nil }

    /// The curve only, never key material.
    public var description: String { "PrivateKey(\(curve.rawValue))" }
}

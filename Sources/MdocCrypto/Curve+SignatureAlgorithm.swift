extension Curve {
    /// The signature algorithm whose hash matches the curve's strength, as ISO 18013-5 and
    /// X.509 profiles pair them: ES256 for P-256 and brainpoolP256r1, ES384 for P-384,
    /// brainpoolP320r1 and brainpoolP384r1, ES512 for P-521 and brainpoolP512r1, EdDSA for
    /// Ed25519 and Ed448. `nil` for the key-agreement-only curves X25519 and X448.
    public var preferredSignatureAlgorithm: SignatureAlgorithm? {
        switch self {
        case .p256, .brainpoolP256r1: return .es256
        case .p384, .brainpoolP320r1, .brainpoolP384r1: return .es384
        case .p521, .brainpoolP512r1: return .es512
        case .ed25519, .ed448: return .edDSA
        case .x25519, .x448: return nil
        }
    }
}

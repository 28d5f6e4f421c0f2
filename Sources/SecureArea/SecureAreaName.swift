/// The secure areas a key can live in, by the name the options and the store use.
public enum SecureAreaName: String, Sendable, Hashable, CaseIterable, Codable, CustomStringConvertible {
    /// Keys wrapped (AES-256-GCM) under a key-encryption key kept outside the store.
    case software
    /// Keys made inside a TPM 2.0 through OpenSSL's tpm2 provider.
    case tpm2
    /// Keys on a PKCS#11 token.
    case pkcs11

    /// Whether the area's keys cannot leave the hardware that made them.
    public var isHardwareBound: Bool { self != .software }

    public var description: String { rawValue }
}

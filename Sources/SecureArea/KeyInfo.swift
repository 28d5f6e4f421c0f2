import MdocCrypto

/// What can be said about a key without using it.
public struct KeyInfo: Sendable, Hashable {
    public var id: String
    /// The area (backend) that holds it.
    public var area: SecureAreaName
    public var curve: Curve
    public var publicKey: PublicKey
    /// Whether the private key cannot leave the hardware that made it.
    public var isHardwareBound: Bool
    /// Whether every use needs a passphrase / auth value / PIN.
    public var requiresPassphrase: Bool
    /// The area's attestation of the key (certificate chain, DER), when it has one. None of the
    /// areas here attests keys yet.
    public var attestation: [[UInt8]]?

    public init(_ key: StoredKey) throws(SecureAreaError) {
        id = key.id
        area = key.area
        curve = key.curve
        publicKey = try key.publicKey()
        isHardwareBound = key.area.isHardwareBound
        requiresPassphrase = key.requiresPassphrase
        attestation = nil
    }

    public static func == (a: KeyInfo, b: KeyInfo) -> Bool { a.id == b.id && a.area == b.area }
    public func hash(into hasher: inout Hasher) {
        hasher.combine(id)
        hasher.combine(area)
    }
}

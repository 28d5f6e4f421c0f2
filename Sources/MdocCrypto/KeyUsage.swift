/// The X.509 key usage bits (RFC 5280, 4.2.1.3).
public struct KeyUsage: OptionSet, Sendable, Hashable {
    /// Bit n of the keyUsage BIT STRING is `1 << n`.
    public let rawValue: UInt16
    /// Usages from their bits (`1 << n` for RFC 5280 bit n).
    public init(rawValue: UInt16) { self.rawValue = rawValue }

    /// Bit 0.
    public static let digitalSignature = KeyUsage(rawValue: 1 << 0)
    /// Bit 1 (also called contentCommitment).
    public static let nonRepudiation = KeyUsage(rawValue: 1 << 1)
    /// Bit 2.
    public static let keyEncipherment = KeyUsage(rawValue: 1 << 2)
    /// Bit 3.
    public static let dataEncipherment = KeyUsage(rawValue: 1 << 3)
    /// Bit 4.
    public static let keyAgreement = KeyUsage(rawValue: 1 << 4)
    /// Bit 5.
    public static let keyCertSign = KeyUsage(rawValue: 1 << 5)
    /// Bit 6.
    public static let cRLSign = KeyUsage(rawValue: 1 << 6)
    /// Bit 7.
    public static let encipherOnly = KeyUsage(rawValue: 1 << 7)
    /// Bit 8.
    public static let decipherOnly = KeyUsage(rawValue: 1 << 8)
}

import MdocCrypto

/// How a new key is made.
public struct KeySettings: Sendable {
    /// The key's curve. Every area makes P-256; the software area makes every ``Curve``.
    public var curve: Curve
    /// A passphrase (software area) or auth value (TPM) the key needs on every use; nil for
    /// none. Never stored.
    public var passphrase: String?

    public init(curve: Curve = .p256, passphrase: String? = nil) {
        self.curve = curve
        self.passphrase = passphrase
    }
}

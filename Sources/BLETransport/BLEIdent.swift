/// The 16-byte Ident the reader serves in mdoc central-client mode
/// (HKDF-SHA256(IKM = EDeviceKeyBytes, salt = empty, info = "BLEIdent", L = 16)).
///
/// This module does no cryptography: the caller derives the expected value from the
/// engagement it showed and hands it in; ``BLESession`` compares it with what the reader's
/// Ident characteristic holds before the holder sends anything.
public struct BLEIdent: Sendable, Hashable {
    public let bytes: [UInt8]

    /// Nil unless exactly 16 bytes.
    public init?(bytes: some Collection<UInt8>) {
        guard bytes.count == 16 else { return nil }
        self.bytes = Array(bytes)
    }

    /// Whether a value read from the reader's Ident characteristic is this Ident. Compares
    /// in time independent of where the bytes differ.
    public func matches(_ value: some Collection<UInt8>) -> Bool {
        guard value.count == bytes.count else { return false }
        var difference: UInt8 = 0
        for (a, b) in zip(bytes, value) { difference |= a ^ b }
        return difference == 0
    }
}

/// The value of the L2CAP PSM characteristic (0000000a / 0000000b): the Protocol/Service
/// Multiplexer to open an L2CAP connection-oriented channel to.
///
/// Implementations disagree on its byte order (SpruceID's SDK notes it): multipaz writes the
/// PSM as 4 bytes big-endian and reads only that, while Bluetooth's own convention for
/// multi-byte fields is little-endian, so a 2-byte little-endian value is what a peer
/// following it writes. We write multipaz's form and read both. An LE PSM that a server
/// allocates is in the dynamic range 0x0080...0x00FF (Core specification, Vol 3, Part A,
/// LE credit-based connection request), so a value is accepted only in that range; this also
/// keeps the forms apart (2 bytes big-endian read as little-endian land outside it).
public enum L2CAPPSM {
    /// The LE PSMs a server allocates dynamically.
    public static let dynamicRange: ClosedRange<UInt16> = 0x0080...0x00FF

    /// Reads a PSM characteristic value: 4 bytes big-endian (multipaz) or 2 bytes
    /// little-endian. Nil for any other length, or a value outside ``dynamicRange``.
    public static func parse(_ bytes: [UInt8]) -> UInt16? {
        let value: UInt32
        switch bytes.count {
        case 4:
            value = bytes.reduce(0) { $0 << 8 | UInt32($1) }
        case 2:
            value = UInt32(bytes[0]) | UInt32(bytes[1]) << 8
        default:
            return nil
        }
        guard let psm = UInt16(exactly: value), dynamicRange.contains(psm) else { return nil }
        return psm
    }

    /// The characteristic value we serve: 4 bytes big-endian, as multipaz reads it.
    public static func encode(_ psm: UInt16) -> [UInt8] {
        [0, 0, UInt8(truncatingIfNeeded: psm >> 8), UInt8(truncatingIfNeeded: psm)]
    }
}

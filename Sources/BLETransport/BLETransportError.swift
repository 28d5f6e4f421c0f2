/// Why a piece of the ISO 18013-5 BLE transport refused its input. Messages describe the
/// framing, never message contents.
public enum BLETransportError: Error, Sendable, Hashable, CustomStringConvertible {
    /// An ATT MTU below 23, the minimum ATT allows: the GATT layer reported a value it
    /// cannot have negotiated.
    case invalidMTU(Int)
    /// A GATT chunk with no header byte (a zero-length write or notification).
    case emptyChunk
    /// A GATT chunk whose header byte is neither 0x01 (more follows) nor 0x00 (last).
    case unknownChunkHeader(UInt8)
    /// A message larger than the configured limit. `size` is how many bytes it had reached,
    /// or declared (L2CAP length field), when it was refused: at least `limit + 1`.
    case messageTooLarge(size: Int, limit: Int)
    /// A message chunk arrived before the session was started (State 0x01), in either mode.
    case dataBeforeStart
    /// GATT client (the holder in central-client mode): the server's Ident characteristic
    /// does not hold the value derived from our engagement, so this is not the reader that
    /// scanned our QR code.
    case identMismatch
    /// GATT client (the holder in central-client mode): the server has no readable Ident.
    case identMissing

    public var description: String {
        switch self {
        case .invalidMTU(let mtu): return "ATT MTU \(mtu) is below the ATT minimum of 23"
        case .emptyChunk: return "a BLE chunk had no header byte"
        case .unknownChunkHeader(let h): return "a BLE chunk had header byte \(h), expected 0 (last) or 1 (more)"
        case .messageTooLarge(let size, let limit):
            return "a message of at least \(size) bytes exceeds the limit of \(limit) bytes"
        case .dataBeforeStart: return "message data arrived before the session was started (State 0x01)"
        case .identMismatch: return "the reader's Ident does not match our engagement"
        case .identMissing: return "the reader offers no Ident characteristic"
        }
    }
}

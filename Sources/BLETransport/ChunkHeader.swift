/// The header byte of a GATT chunk.
public enum ChunkHeader: UInt8, Sendable, Hashable {
    /// This is the last chunk of the message.
    case last = 0x00
    /// More chunks of the same message follow.
    case more = 0x01
}

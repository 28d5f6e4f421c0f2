/// Message framing on the L2CAP connection-oriented channel (ISO 18013-5 2nd edition drafts):
/// each message is a 4-byte big-endian length, then the message.
///
/// We follow multipaz. SpruceID's SDK writes two zero bytes and then a 2-byte big-endian
/// length: the same bytes for every message below 64 KiB, but it cannot express 64 KiB or
/// more (its length silently wraps). Our decoder reads all four bytes, so it reads SpruceID's
/// frames below 64 KiB unchanged; above, only the 4-byte form is meaningful.
///
/// A zero-length frame decodes as an empty message; SpruceID sends one to end the session
/// (there is no State characteristic on L2CAP), so the caller should treat it as the reader
/// ending, not hand it to the presentation engine.
public enum L2CAPFraming {
    /// Bytes of the length field.
    public static let headerSize = 4

    /// The frame of one message: length, then the message.
    ///
    /// - Throws: ``BLETransportError/messageTooLarge(size:limit:)`` for a message the 32-bit
    ///   length cannot express.
    public static func frame(_ message: [UInt8]) throws(BLETransportError) -> [UInt8] {
        guard let length = UInt32(exactly: message.count) else {
            throw .messageTooLarge(size: message.count, limit: Int(UInt32.max))
        }
        var out: [UInt8] = []
        out.reserveCapacity(headerSize + message.count)
        out.append(UInt8(truncatingIfNeeded: length >> 24))
        out.append(UInt8(truncatingIfNeeded: length >> 16))
        out.append(UInt8(truncatingIfNeeded: length >> 8))
        out.append(UInt8(truncatingIfNeeded: length))
        out.append(contentsOf: message)
        return out
    }
}

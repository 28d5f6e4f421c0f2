/// A value of the State characteristic (ISO 18013-5 8.3.3.1.1.5).
public enum BLEStateValue: UInt8, Sendable, Hashable, CaseIterable {
    /// Written by the GATT client to start the session, before the first message.
    case start = 0x01
    /// Either side ends the session (the transport-specific termination).
    case end = 0x02

    /// Reads a State characteristic value: exactly one byte, 0x01 or 0x02.
    public init?(value: some Collection<UInt8>) {
        guard value.count == 1, let byte = value.first else { return nil }
        self.init(rawValue: byte)
    }

    /// The one-byte characteristic value.
    public var value: [UInt8] { [rawValue] }
}

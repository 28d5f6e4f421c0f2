/// 18013-5 messages over an L2CAP channel: each sent as one ``L2CAPFraming`` frame, each
/// received when its frame is complete (``L2CAPMessageDecoder``). A zero-length frame is the
/// peer ending the session (SpruceID sends one); it is returned as an empty message for the
/// caller to treat as such.
public actor L2CAPMessageChannel {
    public let channel: any MdocL2CAPChannel
    private var decoder: L2CAPMessageDecoder
    private var ready: [[UInt8]] = []

    public init(channel: any MdocL2CAPChannel, maximumMessageSize: Int = MessageAssembler.defaultMaximumMessageSize) {
        self.channel = channel
        decoder = L2CAPMessageDecoder(maximumMessageSize: maximumMessageSize)
    }

    /// Sends one message as one frame.
    public func send(_ message: [UInt8]) async throws {
        try await channel.send(try L2CAPFraming.frame(message))
    }

    /// The next complete message.
    ///
    /// - Throws: what the channel throws once closed, or
    ///   ``BLETransportError/messageTooLarge(size:limit:)`` (then close the channel).
    public func receive() async throws -> [UInt8] {
        while ready.isEmpty {
            ready += try decoder.append(try await channel.receive())
        }
        return ready.removeFirst()
    }

    /// Whether the channel closed in the middle of a frame.
    public var isMidMessage: Bool { decoder.isMidMessage }

    public func close() { channel.close() }
}

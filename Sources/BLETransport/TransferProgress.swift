/// How far an outgoing transfer has got, for a progress display of long responses and for
/// the record when a transfer is cut short.
///
/// A transfer is the messages queued on a ``NotificationSender`` from the moment it was idle
/// until it is idle again. Bytes are message bytes (chunk headers not counted), and count as
/// sent once the GATT layer has confirmed their chunk went out.
public struct TransferProgress: Sendable, Hashable, CustomStringConvertible {
    /// Message bytes whose chunks were confirmed sent.
    public var bytesSent: Int
    /// Message bytes queued in this transfer.
    public var totalBytes: Int
    /// Messages whose last chunk was confirmed sent.
    public var messagesSent: Int
    /// Messages queued in this transfer.
    public var messageCount: Int

    public init(bytesSent: Int = 0, totalBytes: Int = 0, messagesSent: Int = 0, messageCount: Int = 0) {
        self.bytesSent = bytesSent
        self.totalBytes = totalBytes
        self.messagesSent = messagesSent
        self.messageCount = messageCount
    }

    /// Every queued message is out.
    public var isComplete: Bool { messagesSent == messageCount }

    /// 0 to 1; 1 when complete (also for a transfer of empty messages).
    public var fractionCompleted: Double {
        if isComplete { return 1 }
        guard totalBytes > 0 else { return 0 }
        return Double(bytesSent) / Double(totalBytes)
    }

    public var description: String {
        "\(bytesSent)/\(totalBytes) bytes, \(messagesSent)/\(messageCount) messages"
    }
}

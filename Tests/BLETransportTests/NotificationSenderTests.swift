import BLETransport
import Testing

/// Flow control: one chunk in flight, progress reported, cancel stops.
struct NotificationSenderTests {
    @Test func neverTwoChunksInFlight() throws {
        var sender = NotificationSender(fragmenter: try MessageFragmenter(mtu: 23))
        sender.enqueue([UInt8](repeating: 5, count: 100))
        let first = sender.nextChunk()
        #expect(first?.count == 20)
        #expect(sender.hasChunkInFlight)
        #expect(sender.nextChunk() == nil)
        #expect(sender.nextChunk() == nil)
        sender.chunkSent()
        #expect(!sender.hasChunkInFlight)
        #expect(sender.nextChunk() != nil)
        #expect(sender.nextChunk() == nil)
    }

    @Test func progressCountsConfirmedMessageBytes() throws {
        var sender = NotificationSender(fragmenter: try MessageFragmenter(mtu: 23))  // 19 bytes a chunk
        sender.enqueue([UInt8](repeating: 5, count: 50))
        #expect(sender.progress == TransferProgress(bytesSent: 0, totalBytes: 50, messagesSent: 0, messageCount: 1))
        var seen: [Int] = []
        while sender.nextChunk() != nil {
            // Handed out but not confirmed: not counted.
            #expect(sender.progress.bytesSent == seen.last ?? 0)
            sender.chunkSent()
            seen.append(sender.progress.bytesSent)
        }
        #expect(seen == [19, 38, 50])
        #expect(sender.progress.isComplete)
        #expect(sender.progress.fractionCompleted == 1)
        #expect(sender.isIdle)
        #expect(sender.messagesCompleted == 1)
    }

    @Test func severalMessagesGoOutInOrderAsOneTransfer() throws {
        var sender = NotificationSender(fragmenter: try MessageFragmenter(mtu: 23))
        let messages = [[UInt8](repeating: 1, count: 30), [], [UInt8](repeating: 2, count: 19)]
        for m in messages { sender.enqueue(m) }
        #expect(sender.progress.totalBytes == 49)
        #expect(sender.progress.messageCount == 3)
        var assembler = MessageAssembler(maximumMessageSize: MessageSizeLimit.request)
        var received: [[UInt8]] = []
        while let chunk = sender.nextChunk() {
            if let m = try assembler.append(chunk) { received.append(m) }
            sender.chunkSent()
        }
        #expect(received == messages)
        #expect(sender.progress == TransferProgress(bytesSent: 49, totalBytes: 49, messagesSent: 3, messageCount: 3))
    }

    @Test func aMessageQueuedMidTransferJoinsIt() throws {
        var sender = NotificationSender(fragmenter: try MessageFragmenter(mtu: 23))
        sender.enqueue([UInt8](repeating: 1, count: 30))
        _ = sender.nextChunk()
        sender.enqueue([UInt8](repeating: 2, count: 10))
        #expect(sender.progress.totalBytes == 40)
        #expect(sender.progress.messageCount == 2)
    }

    @Test func aNewTransferStartsItsOwnProgress() throws {
        var sender = NotificationSender(fragmenter: try MessageFragmenter(mtu: 23))
        sender.enqueue([1, 2, 3])
        _ = sender.nextChunk()
        sender.chunkSent()
        sender.enqueue([4])
        #expect(sender.progress == TransferProgress(bytesSent: 0, totalBytes: 1, messagesSent: 0, messageCount: 1))
        #expect(sender.messagesCompleted == 1)
    }

    @Test func cancellingMidTransferStopsAndReportsWhatWasSent() throws {
        var sender = NotificationSender(fragmenter: try MessageFragmenter(mtu: 23))
        sender.enqueue([UInt8](repeating: 5, count: 100))
        sender.enqueue([UInt8](repeating: 6, count: 100))
        for _ in 0..<3 {
            _ = sender.nextChunk()
            sender.chunkSent()
        }
        _ = sender.nextChunk()  // the fourth is in flight when the link drops
        let reached = sender.cancel()
        #expect(reached == TransferProgress(bytesSent: 57, totalBytes: 200, messagesSent: 0, messageCount: 2))
        #expect(reached.fractionCompleted == 57.0 / 200.0)
        #expect(sender.isIdle)
        #expect(!sender.hasChunkInFlight)
        #expect(sender.nextChunk() == nil)
        sender.chunkSent()  // a late confirmation changes nothing
        #expect(sender.progress == TransferProgress())
    }

    @Test func anMTUChangeAppliesFromTheNextMessage() throws {
        var sender = NotificationSender(fragmenter: try MessageFragmenter(mtu: 23))
        sender.enqueue([UInt8](repeating: 1, count: 40))
        sender.enqueue([UInt8](repeating: 2, count: 40))
        #expect(sender.nextChunk()?.count == 20)
        sender.chunkSent()
        sender.fragmenter = try MessageFragmenter(mtu: 517)
        var sizes: [Int] = []
        while let chunk = sender.nextChunk() {
            sizes.append(chunk.count)
            sender.chunkSent()
        }
        // The first message keeps its 20-byte chunks; the second goes in one.
        #expect(sizes == [20, 3, 41])
    }
}

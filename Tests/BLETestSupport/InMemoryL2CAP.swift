import BLETransport
import Foundation

/// One end of an in-memory L2CAP channel: bytes sent appear at the other end in order, in
/// the pieces they were sent in.
public final class InMemoryL2CAPChannel: MdocL2CAPChannel, @unchecked Sendable {
    private let lock = NSLock()
    private var inbox: [[UInt8]] = []
    private var closed = false
    private var waiter: CheckedContinuation<[UInt8]?, Never>?
    public weak var peer: InMemoryL2CAPChannel?
    /// Holds the other end alive (the peer link is weak).
    public var keep: InMemoryL2CAPChannel?
    /// Every piece this end sent, in order.
    private(set) var sent: [[UInt8]] = []
    /// Sends block until the channel is closed, then throw: a peer that stopped reading, its
    /// socket buffer full.
    public var stallSends = false

    public static func pair() -> (InMemoryL2CAPChannel, InMemoryL2CAPChannel) {
        let a = InMemoryL2CAPChannel()
        let b = InMemoryL2CAPChannel()
        a.peer = b
        b.peer = a
        return (a, b)
    }

    public func send(_ bytes: [UInt8]) async throws {
        if lock.withLock({ stallSends }) {
            while !isClosed { try? await Task.sleep(for: .milliseconds(10)) }
            throw CancellationError()
        }
        guard let peer, !isClosed else { throw CancellationError() }
        lock.withLock { sent.append(bytes) }
        peer.deliver(bytes)
    }

    public func receive() async throws -> [UInt8] {
        let next: [UInt8]? = await withCheckedContinuation { continuation in
            lock.lock()
            if !inbox.isEmpty {
                let first = inbox.removeFirst()
                lock.unlock()
                continuation.resume(returning: first)
            } else if closed {
                lock.unlock()
                continuation.resume(returning: nil)
            } else {
                waiter = continuation
                lock.unlock()
            }
        }
        guard let next else { throw CancellationError() }
        return next
    }

    public func close() {
        shut()
        peer?.shut()
    }

    public var isClosed: Bool { lock.withLock { closed } }

    public var sentPieces: [[UInt8]] { lock.withLock { sent } }

    private func deliver(_ bytes: [UInt8]) {
        lock.lock()
        if let waiter {
            self.waiter = nil
            lock.unlock()
            waiter.resume(returning: bytes)
        } else {
            inbox.append(bytes)
            lock.unlock()
        }
    }

    private func shut() {
        lock.lock()
        closed = true
        let w = inbox.isEmpty ? waiter : nil
        if w != nil { waiter = nil }
        lock.unlock()
        w?.resume(returning: nil)
    }
}

/// A listener the test connects to with ``connect()``.
public final class InMemoryL2CAPListener: MdocL2CAPListener, @unchecked Sendable {
    public let psm: UInt16
    private let lock = NSLock()
    private var pending: [InMemoryL2CAPChannel] = []
    private var waiter: CheckedContinuation<InMemoryL2CAPChannel?, Never>?
    private var closed = false

    public init(psm: UInt16) { self.psm = psm }

    /// The reader connects: returns its end.
    public func connect() -> InMemoryL2CAPChannel {
        let (holderEnd, readerEnd) = InMemoryL2CAPChannel.pair()
        lock.lock()
        if let waiter {
            self.waiter = nil
            lock.unlock()
            waiter.resume(returning: holderEnd)
        } else {
            pending.append(holderEnd)
            lock.unlock()
        }
        // Keep the holder's end alive as long as the reader's.
        readerEnd.keep = holderEnd
        return readerEnd
    }

    public func accept() async throws -> any MdocL2CAPChannel {
        let channel: InMemoryL2CAPChannel? = await withCheckedContinuation { continuation in
            lock.lock()
            if !pending.isEmpty {
                let first = pending.removeFirst()
                lock.unlock()
                continuation.resume(returning: first)
            } else if closed {
                lock.unlock()
                continuation.resume(returning: nil)
            } else {
                waiter = continuation
                lock.unlock()
            }
        }
        guard let channel else { throw CancellationError() }
        return channel
    }

    public func close() {
        lock.lock()
        closed = true
        let w = waiter
        waiter = nil
        lock.unlock()
        w?.resume(returning: nil)
    }

    public var isClosed: Bool { lock.withLock { closed } }
}

import BLETransport
import Foundation
import Proximity

/// A GATT server in memory: the holder's side implements ``MdocGattServer``; the test plays
/// the reader (central) through the `reader...` methods.
actor InMemoryGattServer: MdocGattServer {
    private var events: AsyncStream<MdocGattEvent>.Continuation?
    private var startWaiters: [CheckedContinuation<Void, Never>] = []
    private var notifications: [(MdocCharacteristic, [UInt8])] = []
    private var notificationWaiters: [CheckedContinuation<Void, Never>] = []
    private(set) var serviceUUID: BluetoothUUID?
    /// The PSM characteristic's value source, when the holder offered L2CAP.
    private(set) var l2capPSM: UInt16?
    private(set) var stopped = false
    /// Fail notifications after this many (a link that drops mid-transfer).
    var failAfterNotifications: Int?
    private var notified = 0

    // MARK: MdocGattServer (the holder's side)

    func start(_ service: MdocGattService) async throws -> AsyncStream<MdocGattEvent> {
        self.serviceUUID = service.uuid
        self.l2capPSM = service.l2capPSM
        let (stream, continuation) = AsyncStream<MdocGattEvent>.makeStream()
        events = continuation
        for w in startWaiters { w.resume() }
        startWaiters = []
        return stream
    }

    func notify(_ characteristic: MdocCharacteristic, _ value: [UInt8]) async throws {
        notified += 1
        if let limit = failAfterNotifications, notified > limit {
            events?.yield(.disconnected)
            throw CancellationError()
        }
        notifications.append((characteristic, value))
        for w in notificationWaiters { w.resume() }
        notificationWaiters = []
    }

    func stop() async {
        stopped = true
        events?.finish()
        for w in notificationWaiters { w.resume() }
        notificationWaiters = []
    }

    // MARK: The reader's side

    func waitUntilStarted() async {
        if events != nil { return }
        await withCheckedContinuation { startWaiters.append($0) }
    }

    func readerSends(_ event: MdocGattEvent) { events?.yield(event) }

    /// Writes a message as Client2Server chunks.
    func readerWrites(message: [UInt8], mtu: Int) throws {
        for chunk in try MessageFragmenter(mtu: mtu).chunks(of: message) {
            events?.yield(.written(.client2Server, chunk))
        }
    }

    /// The next complete Server2Client message (State notifications are collected apart).
    func readerReceivesMessage() async throws -> [UInt8]? {
        var assembler = MessageAssembler(maximumMessageSize: MessageSizeLimit.request)
        while true {
            while let index = notifications.firstIndex(where: { $0.0 == .server2Client }) {
                let (_, chunk) = notifications.remove(at: index)
                if let message = try assembler.append(chunk) { return message }
            }
            if stopped { return nil }
            await withCheckedContinuation { notificationWaiters.append($0) }
        }
    }

    func stateNotifications() -> [[UInt8]] { notifications.filter { $0.0 == .state }.map(\.1) }
    var notificationCount: Int { notified }
}

/// Hands the engagement from the holder's callback to the test's reader.
final class EngagementBox: @unchecked Sendable {
    private let lock = NSLock()
    private var value: String?
    func set(_ uri: String) {
        lock.lock()
        value = uri
        lock.unlock()
    }
    func get() -> String? {
        lock.lock()
        defer { lock.unlock() }
        return value
    }
}

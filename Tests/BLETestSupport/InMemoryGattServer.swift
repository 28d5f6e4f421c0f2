import BLETransport

/// A GATT server in memory whose peer the test scripts event by event: the holder's side
/// implements ``MdocGattServer``; the test plays the reader (central) through the `reader...`
/// methods, in any order a hostile reader might (where ``InMemoryGattWire`` joins two
/// well-behaved roles). Fault: `failAfterNotifications` (a link that drops mid-transfer).
public actor InMemoryGattServer: MdocGattServer {
    private var events: AsyncStream<MdocGattEvent>.Continuation?
    private var startWaiters: [CheckedContinuation<Void, Never>] = []
    private var notifications: [(MdocCharacteristic, [UInt8])] = []
    private var notificationWaiters: [CheckedContinuation<Void, Never>] = []
    public private(set) var serviceUUID: BluetoothUUID?
    /// The PSM characteristic's value source, when the holder offered L2CAP.
    public private(set) var l2capPSM: UInt16?
    public private(set) var stopped = false
    /// Fail notifications after this many (a link that drops mid-transfer).
    public var failAfterNotifications: Int?
    private var notified = 0

    public init() {}

    // MARK: MdocGattServer (the holder's side)

    public func start(_ service: MdocGattService) async throws -> AsyncStream<MdocGattEvent> {
        self.serviceUUID = service.uuid
        self.l2capPSM = service.l2capPSM
        let (stream, continuation) = AsyncStream<MdocGattEvent>.makeStream()
        events = continuation
        for w in startWaiters { w.resume() }
        startWaiters = []
        return stream
    }

    public func notify(_ characteristic: MdocCharacteristic, _ value: [UInt8]) async throws {
        notified += 1
        if let limit = failAfterNotifications, notified > limit {
            events?.yield(.disconnected)
            throw CancellationError()
        }
        notifications.append((characteristic, value))
        for w in notificationWaiters { w.resume() }
        notificationWaiters = []
    }

    public func stop() async {
        stopped = true
        events?.finish()
        for w in notificationWaiters { w.resume() }
        notificationWaiters = []
    }

    // MARK: The reader's side

    public func waitUntilStarted() async {
        if events != nil { return }
        await withCheckedContinuation { startWaiters.append($0) }
    }

    public func readerSends(_ event: MdocGattEvent) { events?.yield(event) }

    /// Writes a message as Client2Server chunks.
    public func readerWrites(message: [UInt8], mtu: Int) throws {
        for chunk in try MessageFragmenter(mtu: mtu).chunks(of: message) {
            events?.yield(.written(.client2Server, chunk))
        }
    }

    /// The next complete Server2Client message (State notifications are collected apart).
    public func readerReceivesMessage() async throws -> [UInt8]? {
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

    public func stateNotifications() -> [[UInt8]] { notifications.filter { $0.0 == .state }.map(\.1) }
    public var notificationCount: Int { notified }
}

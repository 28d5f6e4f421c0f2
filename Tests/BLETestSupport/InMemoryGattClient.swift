import BLETransport
import ISO18013

/// A reader's GATT service in memory (mdoc central-client mode) whose peer the test scripts:
/// the holder's side implements ``MdocGattClient``; the test plays the reader (GATT server)
/// through the `reader...` methods. Faults: `failAfterWrites` (a link that drops
/// mid-transfer), `neverFindsReader` (a scan that finds nothing).
public actor InMemoryGattClient: MdocGattClient {
    /// What the reader's Ident characteristic holds.
    public enum Ident: Sendable {
        /// The Ident of the engagement the holder showed (put in the box by the test).
        case of(EngagementBox)
        /// A fixed value; nil: the service has no Ident characteristic.
        case fixed([UInt8]?)
    }
    public let ident: Ident
    /// Fail writes after this many (a link that drops mid-transfer).
    public var failAfterWrites: Int?
    public private(set) var serviceUUID: BluetoothUUID?
    public private(set) var subscribed = false
    public private(set) var disconnected = false
    public private(set) var identReads = 0
    /// The holder's end of the reader's L2CAP channel, when the reader serves a PSM.
    public var l2capChannel: InMemoryL2CAPChannel?
    public private(set) var l2capOpened = false
    /// The scan never finds the reader (for a holder offering both modes).
    public var neverFindsReader = false
    public private(set) var scanCancelled = false
    private var events: AsyncStream<MdocGattClientEvent>.Continuation?
    private var writes: [(MdocCharacteristic, [UInt8])] = []
    /// Every Client2Server chunk, in the order written.
    public private(set) var chunkLog: [[UInt8]] = []
    private var writesBeforeSubscribe = 0
    private var written = 0
    private var waiters: [CheckedContinuation<Void, Never>] = []

    public init(ident: Ident) { self.ident = ident }

    // MARK: MdocGattClient (the holder's side)

    public func connect(serviceUUID: BluetoothUUID, characteristics: MdocBluetoothUUIDs.Characteristics) async throws
        -> MdocGattConnection
    {
        if neverFindsReader {
            // No reader advertises: the scan goes on until the holder cancels it.
            while !Task.isCancelled { try? await Task.sleep(for: .milliseconds(10)) }
            scanCancelled = true
            throw CancellationError()
        }
        self.serviceUUID = serviceUUID
        let (stream, continuation) = AsyncStream<MdocGattClientEvent>.makeStream()
        events = continuation
        wake()
        return MdocGattConnection(mtu: 185, events: stream)
    }

    public func readIdent() async throws -> [UInt8]? {
        identReads += 1
        switch ident {
        case .fixed(let value): return value
        case .of(let box):
            let engagement = try DeviceEngagement(uri: box.get() ?? "")
            return try BLEIdentDerivation.compute(eDeviceKeyBytes: engagement.eDeviceKeyBytes)
        }
    }

    public func openL2CAP(psm: UInt16?) async throws -> (any MdocL2CAPChannel)? {
        l2capOpened = l2capChannel != nil
        return l2capChannel
    }

    public func subscribe() async throws {
        subscribed = true
        wake()
    }

    public func write(_ characteristic: MdocCharacteristic, _ value: [UInt8]) async throws {
        written += 1
        if let limit = failAfterWrites, written > limit {
            events?.yield(.disconnected)
            throw CancellationError()
        }
        if !subscribed { writesBeforeSubscribe += 1 }
        writes.append((characteristic, value))
        if characteristic == .client2Server { chunkLog.append(value) }
        wake()
    }

    public func disconnect() async {
        disconnected = true
        events?.finish()
        wake()
    }

    // MARK: The reader's side

    private func wake() {
        for w in waiters { w.resume() }
        waiters = []
    }

    private func waitForChange() async { await withCheckedContinuation { waiters.append($0) } }

    /// Waits until the holder has connected.
    public func waitUntilConnected() async {
        while events == nil { await waitForChange() }
    }

    /// Waits for the holder's State write (start) after its subscription; false if the
    /// holder disconnected first.
    public func waitForStart() async -> Bool {
        while !writes.contains(where: { $0.0 == .state && $0.1 == [0x01] }) {
            if disconnected { return false }
            await waitForChange()
        }
        return subscribed
    }

    public func readerNotifies(_ event: MdocGattClientEvent) { events?.yield(event) }

    /// Sends a message as Server2Client notifications.
    public func readerNotifies(message: [UInt8], mtu: Int) throws {
        for chunk in try MessageFragmenter(mtu: mtu).chunks(of: message) {
            events?.yield(.notified(.server2Client, chunk))
        }
    }

    /// The next complete Client2Server message; nil once the holder disconnected without one.
    public func readerReceivesMessage() async throws -> [UInt8]? {
        var assembler = MessageAssembler(maximumMessageSize: MessageSizeLimit.request)
        while true {
            while let index = writes.firstIndex(where: { $0.0 == .client2Server }) {
                let (_, chunk) = writes.remove(at: index)
                if let message = try assembler.append(chunk) { return message }
            }
            if disconnected { return nil }
            await waitForChange()
        }
    }

    public func stateWrites() -> [[UInt8]] { writes.filter { $0.0 == .state }.map(\.1) }
    public var writeCount: Int { written }
    public var writesBeforeSubscription: Int { writesBeforeSubscribe }

    public func setFailAfterWrites(_ n: Int) { failAfterWrites = n }
    public func setNeverFindsReader() { neverFindsReader = true }
    public func setL2CAPChannel(_ channel: InMemoryL2CAPChannel) { l2capChannel = channel }
}

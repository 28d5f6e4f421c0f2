import BLETestSupport
import BLETransport
import Foundation
import ISO18013
import Proximity

/// A reader's GATT service in memory (mdoc central-client mode): the holder's side
/// implements ``MdocGattClient``; the test plays the reader (GATT server) through the
/// `reader...` methods.
actor InMemoryGattClient: MdocGattClient {
    /// What the reader's Ident characteristic holds.
    enum Ident: Sendable {
        /// The Ident of the engagement the holder showed (put in the box by the test).
        case of(EngagementBox)
        /// A fixed value; nil: the service has no Ident characteristic.
        case fixed([UInt8]?)
    }
    let ident: Ident
    /// Fail writes after this many (a link that drops mid-transfer).
    var failAfterWrites: Int?
    private(set) var serviceUUID: BluetoothUUID?
    private(set) var subscribed = false
    private(set) var disconnected = false
    private(set) var identReads = 0
    /// The holder's end of the reader's L2CAP channel, when the reader serves a PSM.
    var l2capChannel: InMemoryL2CAPChannel?
    private(set) var l2capOpened = false
    /// The scan never finds the reader (for a holder offering both modes).
    var neverFindsReader = false
    private(set) var scanCancelled = false
    private var events: AsyncStream<MdocGattClientEvent>.Continuation?
    private var writes: [(MdocCharacteristic, [UInt8])] = []
    /// Every Client2Server chunk, in the order written.
    private(set) var chunkLog: [[UInt8]] = []
    private var writesBeforeSubscribe = 0
    private var written = 0
    private var waiters: [CheckedContinuation<Void, Never>] = []

    init(ident: Ident) { self.ident = ident }

    // MARK: MdocGattClient (the holder's side)

    func connect(serviceUUID: BluetoothUUID, characteristics: MdocBluetoothUUIDs.Characteristics) async throws
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

    func readIdent() async throws -> [UInt8]? {
        identReads += 1
        switch ident {
        case .fixed(let value): return value
        case .of(let box):
            let engagement = try DeviceEngagement(uri: box.get() ?? "")
            return try BLEIdentDerivation.compute(eDeviceKeyBytes: engagement.eDeviceKeyBytes)
        }
    }

    func openL2CAP(psm: UInt16?) async throws -> (any MdocL2CAPChannel)? {
        l2capOpened = l2capChannel != nil
        return l2capChannel
    }

    func subscribe() async throws {
        subscribed = true
        wake()
    }

    func write(_ characteristic: MdocCharacteristic, _ value: [UInt8]) async throws {
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

    func disconnect() async {
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
    func waitUntilConnected() async {
        while events == nil { await waitForChange() }
    }

    /// Waits for the holder's State write (start) after its subscription; false if the
    /// holder disconnected first.
    func waitForStart() async -> Bool {
        while !writes.contains(where: { $0.0 == .state && $0.1 == [0x01] }) {
            if disconnected { return false }
            await waitForChange()
        }
        return subscribed
    }

    func readerNotifies(_ event: MdocGattClientEvent) { events?.yield(event) }

    /// Sends a message as Server2Client notifications.
    func readerNotifies(message: [UInt8], mtu: Int) throws {
        for chunk in try MessageFragmenter(mtu: mtu).chunks(of: message) {
            events?.yield(.notified(.server2Client, chunk))
        }
    }

    /// The next complete Client2Server message; nil once the holder disconnected without one.
    func readerReceivesMessage() async throws -> [UInt8]? {
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

    func stateWrites() -> [[UInt8]] { writes.filter { $0.0 == .state }.map(\.1) }
    var writeCount: Int { written }
    var writesBeforeSubscription: Int { writesBeforeSubscribe }

    func setFailAfterWrites(_ n: Int) { failAfterWrites = n }
    func setNeverFindsReader() { neverFindsReader = true }
    func setL2CAPChannel(_ channel: InMemoryL2CAPChannel) { l2capChannel = channel }
}

// The reader's GATT client and L2CAP channel, wrapped to mark the steps of a session on a
// SessionClock: the request's first write, its last (L2CAP), the first response byte.
import BLETransport

/// The reader's BlueZ GATT client, noting the connection, the request's first and last
/// chunks and the first Server2Client notification (the holder sends none before its response).
struct TimedGattClient: MdocGattClient {
    let inner: any MdocGattClient
    let clock: SessionClock

    func connect(serviceUUID: BluetoothUUID, characteristics: MdocBluetoothUUIDs.Characteristics) async throws
        -> MdocGattConnection
    {
        let connection = try await inner.connect(serviceUUID: serviceUUID, characteristics: characteristics)
        clock.mark(.connected)
        let (events, continuation) = AsyncStream<MdocGattClientEvent>.makeStream()
        let forward = Task { [clock] in
            for await event in connection.events {
                if case .notified(.server2Client, _) = event { clock.mark(.firstResponseByte) }
                continuation.yield(event)
            }
            continuation.finish()
        }
        continuation.onTermination = { _ in forward.cancel() }
        return MdocGattConnection(mtu: connection.mtu, events: events)
    }

    func readIdent() async throws -> [UInt8]? { try await inner.readIdent() }
    func subscribe() async throws { try await inner.subscribe() }
    /// The first Client2Server chunk is the request's (State 0x01 goes before it); its last
    /// chunk is the first whose header byte says last (``ChunkHeader/last``).
    func write(_ characteristic: MdocCharacteristic, _ value: [UInt8]) async throws {
        guard characteristic == .client2Server else { return try await inner.write(characteristic, value) }
        clock.mark(.requestStart)
        try await inner.write(characteristic, value)
        if value.first == ChunkHeader.last.rawValue { clock.mark(.requestWritten) }
    }
    func disconnect() async { await inner.disconnect() }

    func openL2CAP(psm: UInt16?) async throws -> (any MdocL2CAPChannel)? {
        guard let channel = try await inner.openL2CAP(psm: psm) else { return nil }
        return TimedL2CAPChannel(inner: channel, clock: clock)
    }
}

/// The reader's L2CAP channel, noting the request's frame written (its first send) and the
/// first bytes received (the holder sends nothing before its response).
struct TimedL2CAPChannel: MdocL2CAPChannel {
    let inner: any MdocL2CAPChannel
    let clock: SessionClock

    func send(_ bytes: [UInt8]) async throws {
        clock.mark(.requestStart)
        try await inner.send(bytes)
        clock.mark(.requestWritten)
    }
    func receive() async throws -> [UInt8] {
        let bytes = try await inner.receive()
        clock.mark(.firstResponseByte)
        return bytes
    }
    func close() { inner.close() }
}

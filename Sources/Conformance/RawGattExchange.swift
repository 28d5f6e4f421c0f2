import BLETransport
import ProximityReader

/// Chunk-level access to the holder's GATT service in mdoc peripheral-server mode, below the
/// message channel: the cases that send chunks a correct reader would not cut, or check each
/// chunk the holder sends.
struct RawGattExchange: Sendable {
    let client: any MdocGattClient
    let evidence: EvidenceLog

    /// What came back on Server2Client.
    struct Received: Sendable {
        var chunks: [[UInt8]]
        /// Why collecting stopped before a last chunk (header 0x00): State 0x02, the link, the bound.
        var stoppedBy: String?
    }

    /// Connects, subscribes and writes State 0x01 (within `timeout`), writes `chunks` to
    /// Client2Server, and collects Server2Client chunks until one with a header other than
    /// 0x01 (or the first one, with `firstChunkOnly`), State 0x02, the link's end, or
    /// `timeout`.
    func exchange(_ uuid: BluetoothUUID, chunks: [[UInt8]], timeout: Duration, firstChunkOnly: Bool = false)
        async throws(CaseStop) -> (mtu: Int?, received: Received)
    {
        let connection = try await reach(uuid, timeout: timeout)
        let received = await send(chunks, on: connection, timeout: timeout, firstChunkOnly: firstChunkOnly)
        return (connection.mtu, received)
    }

    /// Connects, subscribes and writes State 0x01, within `timeout`.
    func reach(_ uuid: BluetoothUUID, timeout: Duration) async throws(CaseStop) -> MdocGattConnection {
        let client = client
        let reached = await ConformanceRunner.bounded(timeout) { () async throws(CaseStop) -> MdocGattConnection in
            do {
                let connection = try await client.connect(
                    serviceUUID: uuid, characteristics: MdocBluetoothUUIDs.peripheralServer)
                try await client.subscribe()
                try await client.write(.state, BLEStateValue.start.value)
                return connection
            } catch {
                throw .fail("could not reach the holder's GATT service: \(error)")
            }
        }
        switch reached {
        case .success(let connection):
            evidence.note(
                "connected (GATT client), subscribed, wrote State 0x01; ATT MTU "
                    + (connection.mtu.map(String.init) ?? "not reported"))
            return connection
        case .failure(let stop):
            await client.disconnect()
            throw stop
        case nil:
            await client.disconnect()
            throw .fail("could not reach the holder's GATT service within \(timeout)")
        }
    }

    /// On `connection`: writes `state` (when given) to State, then `chunks` to Client2Server,
    /// and collects what comes back as ``exchange(_:chunks:timeout:firstChunkOnly:)`` does.
    func send(
        _ chunks: [[UInt8]], on connection: MdocGattConnection, state: BLEStateValue? = nil, timeout: Duration,
        firstChunkOnly: Bool = false
    ) async -> Received {
        let collector = Task { await Self.collect(connection.events, firstChunkOnly: firstChunkOnly) }
        if let state {
            do {
                try await client.write(.state, state.value)
                evidence.note("wrote State \(EvidenceLog.hex(state.value))")
            } catch {
                evidence.note("writing State \(EvidenceLog.hex(state.value)) failed: \(error)")
            }
        }
        // The holder may end the session before the last chunk (a bad one came first): the
        // writes stop there and what it sent is still read.
        var written = 0
        do {
            for chunk in chunks {
                try await client.write(.client2Server, chunk)
                written += 1
            }
            evidence.note("wrote \(chunks.count) chunk(s), headers \(Self.headers(chunks))")
        } catch {
            evidence.note("wrote \(written) of \(chunks.count) chunk(s), then: \(error)")
        }
        let timer = Task {
            try? await Task.sleep(for: timeout)
            collector.cancel()
        }
        let received = await collector.value
        timer.cancel()
        evidence.note(
            "received \(received.chunks.count) chunk(s), headers \(Self.headers(received.chunks))"
                + (received.stoppedBy.map { ", stopped by \($0)" } ?? ""))
        return received
    }

    /// Writes State 0x02 and disconnects.
    func end() async {
        try? await client.write(.state, BLEStateValue.end.value)
        await client.disconnect()
        evidence.note("wrote State 0x02, disconnected")
    }

    /// Drops the link without a word (no State 0x02, no status 20): a reader walking away.
    func drop() async {
        await client.disconnect()
        evidence.note("disconnected (no State 0x02, no status 20)")
    }

    private static func collect(_ events: AsyncStream<MdocGattClientEvent>, firstChunkOnly: Bool) async -> Received {
        var chunks: [[UInt8]] = []
        for await event in events {
            switch event {
            case .notified(.server2Client, let value):
                chunks.append(value)
                if firstChunkOnly || value.first != ChunkHeader.more.rawValue { return Received(chunks: chunks) }
            case .notified(.state, let value):
                return Received(chunks: chunks, stoppedBy: "State \(EvidenceLog.hex(value))")
            case .notified:
                break
            case .disconnected:
                return Received(chunks: chunks, stoppedBy: "the link closing")
            }
        }
        return Received(chunks: chunks, stoppedBy: Task.isCancelled ? "the time bound" : "the end of events")
    }

    /// The first headers of `chunks`, in hex.
    static func headers(_ chunks: [[UInt8]]) -> String {
        let shown = chunks.prefix(8).map { $0.first.map { EvidenceLog.hex([$0]) } ?? "(empty)" }
        return shown.joined(separator: " ") + (chunks.count > 8 ? " ..." : "")
    }
}

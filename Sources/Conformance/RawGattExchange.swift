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

    /// Connects, subscribes, writes State 0x01 and `chunks` to Client2Server, and collects
    /// Server2Client chunks until one with a header other than 0x01, State 0x02, the link's
    /// end, or `timeout`.
    func exchange(_ uuid: BluetoothUUID, chunks: [[UInt8]], timeout: Duration) async throws(CaseStop) -> (
        mtu: Int?, received: Received
    ) {
        let connection: MdocGattConnection
        do {
            connection = try await client.connect(
                serviceUUID: uuid, characteristics: MdocBluetoothUUIDs.peripheralServer)
            try await client.subscribe()
            try await client.write(.state, BLEStateValue.start.value)
        } catch {
            await client.disconnect()
            throw .fail("could not reach the holder's GATT service: \(error)")
        }
        evidence.note(
            "connected (GATT client), subscribed, wrote State 0x01; ATT MTU \(connection.mtu.map(String.init) ?? "not reported")"
        )
        let collector = Task { await Self.collect(connection.events) }
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
        return (connection.mtu, received)
    }

    /// Writes State 0x02 and disconnects.
    func end() async {
        try? await client.write(.state, BLEStateValue.end.value)
        await client.disconnect()
        evidence.note("wrote State 0x02, disconnected")
    }

    private static func collect(_ events: AsyncStream<MdocGattClientEvent>) async -> Received {
        var chunks: [[UInt8]] = []
        for await event in events {
            switch event {
            case .notified(.server2Client, let value):
                chunks.append(value)
                if value.first != ChunkHeader.more.rawValue { return Received(chunks: chunks) }
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

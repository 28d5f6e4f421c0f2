import BLETransport
import ProximityReader

/// Chunk-level access to the holder's mdoc service, below the message channel, in either
/// mode (``RawGattRole``): the cases that send chunks a correct reader would not cut, or
/// check each chunk the holder sends.
struct RawGattExchange: Sendable {
    let role: any RawGattRole
    let evidence: EvidenceLog

    /// What came back from the holder.
    struct Received: Sendable {
        var chunks: [[UInt8]]
        /// Why collecting stopped before a last chunk (header 0x00): State 0x02, the link, the bound.
        var stoppedBy: String?
    }

    /// Reaches the holder (the session started, within `timeout`), sends what `cut` makes of
    /// the link (the chunks of our message), and collects the holder's chunks until one with
    /// a header other than 0x01 (or the first one, with `firstChunkOnly`), State 0x02, the
    /// link's end, or `timeout`.
    func exchange(
        _ uuid: BluetoothUUID, timeout: Duration, firstChunkOnly: Bool = false,
        cut: (RawGattLink) throws(CaseStop) -> [[UInt8]]
    ) async throws(CaseStop) -> (link: RawGattLink, sent: [[UInt8]], received: Received) {
        let link = try await reach(uuid, timeout: timeout)
        let chunks: [[UInt8]]
        do throws(CaseStop) {
            chunks = try cut(link)
        } catch {
            await role.release()
            throw error
        }
        let received = await send(chunks, on: link, timeout: timeout, firstChunkOnly: firstChunkOnly)
        return (link, chunks, received)
    }

    /// `message` in chunks for `mtu`, or when nil for the link's MTU (``ProximityReader/assumedMTU``
    /// when it reports none): as GATT server the MTU BlueZ tells us is already lowered so
    /// that a notification arrives whole.
    static func chunks(of message: [UInt8], mtu: Int?, on link: RawGattLink) throws(CaseStop) -> [[UInt8]] {
        do {
            return try MessageFragmenter(mtu: mtu ?? link.mtu ?? ProximityReader.assumedMTU).chunks(of: message)
        } catch {
            throw .skip("cannot cut the message in chunks: \(error)")
        }
    }

    /// Reaches the holder: the session started (State 0x01), within `timeout`.
    func reach(_ uuid: BluetoothUUID, timeout: Duration) async throws(CaseStop) -> RawGattLink {
        try await role.reach(uuid, timeout: timeout, evidence: evidence)
    }

    /// On `link`: sends `state` (when given), then `chunks`, and collects what comes back as
    /// ``exchange(_:chunks:timeout:firstChunkOnly:)`` does.
    func send(
        _ chunks: [[UInt8]], on link: RawGattLink, state: BLEStateValue? = nil, timeout: Duration,
        firstChunkOnly: Bool = false
    ) async -> Received {
        let collector = Task { await Self.collect(link.incoming, firstChunkOnly: firstChunkOnly) }
        if let state {
            do {
                try await link.sendState(state.value)
                evidence.note("sent State \(EvidenceLog.hex(state.value))")
            } catch {
                evidence.note("sending State \(EvidenceLog.hex(state.value)) failed: \(error)")
            }
        }
        // The holder may end the session before the last chunk (a bad one came first): the
        // sending stops there and what it sent is still read.
        var sent = 0
        do {
            for chunk in chunks {
                try await link.sendChunk(chunk)
                sent += 1
            }
            evidence.note("sent \(chunks.count) chunk(s), headers \(Self.headers(chunks))")
        } catch {
            evidence.note("sent \(sent) of \(chunks.count) chunk(s), then: \(error)")
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

    /// Sends State 0x02 on `link` and lets it go.
    func end(_ link: RawGattLink) async {
        try? await link.sendState(BLEStateValue.end.value)
        await role.release()
        evidence.note("sent State 0x02, \(role.releaseWord)")
    }

    /// Drops the link without a word (no State 0x02, no status 20): a reader walking away.
    func drop() async {
        await role.release()
        evidence.note("\(role.releaseWord) (no State 0x02, no status 20)")
    }

    private static func collect(_ incoming: AsyncStream<RawGattLink.Incoming>, firstChunkOnly: Bool) async
        -> Received
    {
        var chunks: [[UInt8]] = []
        for await event in incoming {
            switch event {
            case .chunk(let value):
                chunks.append(value)
                if firstChunkOnly || value.first != ChunkHeader.more.rawValue { return Received(chunks: chunks) }
            case .state(let value):
                return Received(chunks: chunks, stoppedBy: "State \(EvidenceLog.hex(value))")
            case .closed:
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

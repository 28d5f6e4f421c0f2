import BLETransport
import ProximityReader
import Synchronization

/// One raw GATT link to the holder, in either mode: the holder's chunks and State values as
/// they come, and a way to write ours. In mdoc peripheral-server mode we are the GATT client
/// (``RawGattClientRole``); in mdoc central-client mode we serve (``RawGattServerRole``).
struct RawGattLink: Sendable {
    /// What the holder sends on the link.
    enum Incoming: Sendable {
        /// One chunk of the holder's message (Server2Client notified, or Client2Server written).
        case chunk([UInt8])
        /// A State value (notified by the holder as GATT server, or written by it as client).
        case state([UInt8])
        /// The link is gone.
        case closed
    }

    /// The holder's chunks, State values and the link's end.
    let incoming: AsyncStream<Incoming>
    /// Sends one chunk of our message.
    let sendChunk: @Sendable ([UInt8]) async throws -> Void
    /// Sends a State value.
    let sendState: @Sendable ([UInt8]) async throws -> Void
    /// The ATT MTU as last reported; nil when the link reports none.
    let reportedMTU: @Sendable () -> Int?

    var mtu: Int? { reportedMTU() }

    /// The largest chunk the holder may send on this link, and that bound in words. As GATT
    /// client we know the ATT MTU: min(512, MTU - 3). As GATT server we are not told the MTU
    /// the holder writes with (BlueZ tells a server an MTU lowered for its own notifications),
    /// and the ATT layer refuses a write over the MTU itself: 512, the standard's cap.
    let holderChunkLimit: @Sendable () -> (limit: Int, bound: String)

    /// min(512, `mtu` - 3) (`mtu` nil: ``ProximityReader/assumedMTU``).
    static func clientChunkLimit(_ mtu: Int?) -> (limit: Int, bound: String) {
        let mtu = mtu ?? ProximityReader.assumedMTU
        return (min(MessageFragmenter.maximumChunkSize, mtu - 3), "min(512, MTU \(mtu) - 3)")
    }
}

/// A side of the raw link: reaches the holder and lets it go.
protocol RawGattRole: Sendable {
    /// Reaches the holder's session on `uuid` (the session started: State 0x01), within `timeout`.
    func reach(_ uuid: BluetoothUUID, timeout: Duration, evidence: EvidenceLog) async throws(CaseStop) -> RawGattLink
    /// Ends the link without a word (GATT client: disconnect; GATT server: stop serving).
    func release() async
    /// What the evidence says of our release: "disconnected" or "stopped serving".
    var releaseWord: String { get }
}

/// The GATT client role, in mdoc peripheral-server mode.
struct RawGattClientRole: RawGattRole {
    let client: any MdocGattClient

    var releaseWord: String { "disconnected" }

    func reach(_ uuid: BluetoothUUID, timeout: Duration, evidence: EvidenceLog) async throws(CaseStop) -> RawGattLink {
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
            let incoming = connection.events.forwarded { event -> RawGattLink.Incoming? in
                switch event {
                case .notified(.server2Client, let value): return .chunk(value)
                case .notified(.state, let value): return .state(value)
                case .notified: return nil
                case .disconnected: return .closed
                }
            }
            return RawGattLink(
                incoming: incoming, sendChunk: { try await client.write(.client2Server, $0) },
                sendState: { try await client.write(.state, $0) }, reportedMTU: { connection.mtu },
                holderChunkLimit: { RawGattLink.clientChunkLimit(connection.mtu) })
        case .failure(let stop):
            await client.disconnect()
            throw stop
        case nil:
            await client.disconnect()
            throw .fail("could not reach the holder's GATT service within \(timeout)")
        }
    }

    func release() async { await client.disconnect() }
}

extension AsyncStream where Element: Sendable {
    /// This stream's elements through `transform` (nil: left out), in order.
    func forwarded<T: Sendable>(_ transform: @escaping @Sendable (Element) -> T?) -> AsyncStream<T> {
        let (stream, continuation) = AsyncStream<T>.makeStream()
        let forward = Task {
            for await element in self {
                if let mapped = transform(element) { continuation.yield(mapped) }
            }
            continuation.finish()
        }
        continuation.onTermination = { _ in forward.cancel() }
        return stream
    }
}

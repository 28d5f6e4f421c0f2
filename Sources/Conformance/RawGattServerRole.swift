import BLETransport
import Synchronization

/// The GATT server role, in mdoc central-client mode: we serve the mdoc service with the
/// session's Ident, the holder connects, subscribes and writes State 0x01; our chunks go out
/// as Server2Client notifications and the holder's come as Client2Server writes. Below the
/// message channel, so a case can cut chunks a correct reader would not and check each of
/// the holder's.
struct RawGattServerRole: RawGattRole {
    let server: any MdocGattServer
    let ident: BLEIdent

    var releaseWord: String { "stopped serving (the holder disconnected)" }

    func reach(_ uuid: BluetoothUUID, timeout: Duration, evidence: EvidenceLog) async throws(CaseStop) -> RawGattLink {
        let events: AsyncStream<MdocGattEvent>
        do {
            events = try await server.start(.centralClient(uuid, ident: ident))
        } catch {
            throw .fail("could not serve the mdoc service \(uuid): \(error)")
        }
        evidence.note("serving \(uuid) (GATT server) with the engagement's Ident; waiting for the holder")
        let mtu = Mutex<Int?>(nil)
        let incoming = events.forwarded { event -> RawGattLink.Incoming? in
            switch event {
            case .mtu(let value):
                mtu.withLock { $0 = value }
                return nil
            case .written(.client2Server, let value): return .chunk(value)
            case .written(.state, let value): return .state(value)
            case .written, .subscribed, .unsubscribed: return nil
            case .disconnected: return .closed
            }
        }
        let started = await ConformanceRunner.bounded(timeout) { () async throws(CaseStop) -> Bool in
            for await event in incoming {
                switch event {
                case .state(let value) where BLEStateValue(value: value) == .start: return true
                case .closed: throw .fail("the holder disconnected before it started the session (State 0x01)")
                default: continue
                }
            }
            throw .fail("the GATT server stopped before the holder started the session")
        }
        switch started {
        case .success:
            evidence.note(
                "the holder connected, subscribed and wrote State 0x01; MTU told to our server "
                    + (mtu.withLock { $0 }.map(String.init) ?? "not reported"))
            let server = server
            return RawGattLink(
                incoming: incoming, sendChunk: { try await server.notify(.server2Client, $0) },
                sendState: { try await server.notify(.state, $0) }, reportedMTU: { mtu.withLock { $0 } },
                holderChunkLimit: { (MessageFragmenter.maximumChunkSize, "the standard's 512 (as GATT server)") })
        case .failure(let stop):
            await server.stop()
            throw stop
        case nil:
            await server.stop()
            throw .fail("the holder did not start the session (State 0x01) on our service within \(timeout)")
        }
    }

    func release() async { await server.stop() }
}

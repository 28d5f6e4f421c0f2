import BLETestSupport
import BLETransport
import ISO18013
import MdocCrypto
import Presentation
import ProximityReader
import Testing

/// The reader's loop against a holder played by hand on the in-memory wire (the reader is
/// the GATT client of the holder's service).
struct ReaderExchangeTests {
    static let uuid = BluetoothUUID(high: 0xAB, low: 0xCD)

    /// A holder that answers the reader's request by `answer` on the wire's server.
    static func exchange(
        answer: @escaping @Sendable (InMemoryGattWire) async throws -> Void
    ) async throws -> ReaderOutcome {
        let wire = InMemoryGattWire(mtu: 185)
        let engagement = DeviceEngagement(
            eDeviceKey: try PrivateKey.generate(.p256).publicKey,
            retrievalMethods: [
                .ble(
                    version: 1,
                    BleOptions(
                        peripheralServerMode: true, centralClientMode: false, peripheralServerUUID: uuid.bytes,
                        centralClientUUID: nil, l2capPSM: nil))
            ])
        let events = try await wire.server.start(.peripheralServer(uuid))
        let holder = Task {
            for await event in events {
                if case .written(.client2Server, let chunk) = event, chunk.first == 0x00 {
                    try await answer(wire)
                    return
                }
            }
        }
        defer { holder.cancel() }
        let reader = ProximityReader(client: wire.client, server: nil, timeout: .seconds(5))
        let connection = try await reader.connect(.peripheralServer(uuid), engagement: engagement)
        var session = try ReaderSession(engagement: engagement, trustAnchors: [try TestMDL(portraitSize: 1).pki.iaca])
        let establishment = try session.establishment(
            requesting: [ItemsRequest(docType: TestMDL.docType, nameSpaces: [.init(TestMDL.nameSpace, [.init("x")])])])
        return try await connection.exchange(establishment, with: &session, timeout: .seconds(5))
    }

    @Test func aHolderThatEndsWithStateEndGivesNoResponse() async throws {
        let outcome = try await Self.exchange { wire in try await wire.server.notify(.state, [0x02]) }
        guard case .noResponse(let how) = outcome else {
            Issue.record("expected no response, got \(outcome)")
            return
        }
        #expect(how.contains("State 0x02"))
    }

    @Test func anAnswerThatDoesNotDecryptIsToldWithStatus10() async throws {
        let outcome = try await Self.exchange { wire in
            let garbage = SessionData(data: [UInt8](repeating: 7, count: 40)).encoded
            for chunk in try MessageFragmenter(mtu: 185).chunks(of: garbage) {
                try await wire.server.notify(.server2Client, chunk)
            }
        }
        guard case .unreadableResponse = outcome else {
            Issue.record("expected an unreadable response, got \(outcome)")
            return
        }
    }

    @Test func aHolderThatDisconnectsWithoutAWordIsAFailure() async throws {
        await #expect(throws: BLEReaderError.self) {
            _ = try await Self.exchange { wire in await wire.server.stop() }
        }
    }
}

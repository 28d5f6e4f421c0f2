import BLEBlueZ
import BLETransport
import BlueZ
import Foundation
import Synchronization
import TestSupport
import Testing

/// The BlueZ GATT server and client of BLEBlueZ serve both roles: the holder's server with
/// the reader's client (mdoc peripheral-server mode) and the reader's server with the
/// holder's client (mdoc central-client mode, with the Ident). One test per pairing, through
/// BlueZoo on a private bus: subscription, State and Client2Server writes in order,
/// Server2Client and State notifications in order, the Ident read.
struct SharedRolesTests {
    enum Role: String, CaseIterable, Sendable {
        case holder, reader
    }

    static func roles(_ role: Role, bus: BlueZooBus, adapter: String) async throws -> BlueZRoles {
        let client = try await BlueZClient.connect(busAddress: bus.address)
        switch role {
        case .holder: return BlueZRoles.holder(client: client, adapter: adapter, l2cap: false, warn: { _ in })
        case .reader:
            return BlueZRoles.reader(
                client: client, adapter: adapter, timeout: .seconds(30), l2cap: false, log: { _ in })
        }
    }

    /// Collects a stream's elements on a task; `wait` returns them once `condition` holds.
    final class Collected<Element: Sendable>: Sendable {
        private final class Storage: Sendable {
            let items = Mutex<[Element]>([])
        }
        private let storage = Storage()
        private let task: Task<Void, Never>

        init(_ stream: AsyncStream<Element>) {
            let storage = self.storage
            task = Task {
                for await item in stream { storage.items.withLock { $0.append(item) } }
            }
        }

        deinit { task.cancel() }

        func wait(_ what: String, until condition: ([Element]) -> Bool) async throws -> [Element] {
            let deadline = ContinuousClock.now + .seconds(15)
            while true {
                let now = storage.items.withLock { $0 }
                if condition(now) { return now }
                guard ContinuousClock.now < deadline else {
                    throw BlueZooBus.Failure(description: "\(what) did not arrive: \(now)")
                }
                try await Task.sleep(for: .milliseconds(10))
            }
        }
    }

    @Test(arguments: [Role.holder, Role.reader])
    func oneSessionCrossesBothWays(serverRole: Role) async throws {
        try await BlueZooBus.with { bus in
            let server = try await Self.roles(serverRole, bus: bus, adapter: "hci0").server
            let client = try await Self.roles(serverRole == .holder ? .reader : .holder, bus: bus, adapter: "hci1")
                .client
            let uuid = BluetoothUUID(high: .random(in: 1...UInt64.max), low: .random(in: 1...UInt64.max))
            let ident = try #require(BLEIdent(bytes: (0..<16).map { UInt8($0) }))
            let service: MdocGattService =
                serverRole == .holder ? .peripheralServer(uuid) : .centralClient(uuid, ident: ident)
            let serverEvents = Collected(try await server.start(service))
            let connection = try await client.connect(serviceUUID: uuid, characteristics: service.characteristics)
            let clientEvents = Collected(connection.events)
            if serverRole == .reader {
                #expect(try await client.readIdent() == ident.bytes)
            }
            try await client.subscribe()
            try await client.write(.state, [0x01])
            try await client.write(.client2Server, [0x01, 0xA1, 0xA2])
            try await client.write(.client2Server, [0x00, 0xA3])
            let written = try await serverEvents.wait("the client's writes") { events in
                events.filter { if case .written = $0 { true } else { false } }.count == 3
            }
            .compactMap { event -> [UInt8]? in
                if case .written(let c, let value) = event { return [c == .state ? 0xFF : 0xEE] + value }
                return nil
            }
            #expect(written == [[0xFF, 0x01], [0xEE, 0x01, 0xA1, 0xA2], [0xEE, 0x00, 0xA3]])
            _ = try await serverEvents.wait("the subscription to Server2Client") {
                $0.contains(.subscribed(.server2Client))
            }

            try await server.notify(.server2Client, [0x01, 0xB1])
            try await server.notify(.server2Client, [0x00, 0xB2])
            try await server.notify(.state, [0x02])
            let notified = try await clientEvents.wait("the server's notifications") { $0.count >= 3 }
            #expect(
                Array(notified.prefix(3)) == [
                    .notified(.server2Client, [0x01, 0xB1]), .notified(.server2Client, [0x00, 0xB2]),
                    .notified(.state, [0x02]),
                ])
            await client.disconnect()
            await server.stop()
        }
    }
}

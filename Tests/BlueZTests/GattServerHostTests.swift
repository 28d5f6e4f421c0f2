import BlueZ
import DBus
import Synchronization
import TestSupport
import Testing

/// ``GattServerHost`` keeps an application and an advertisement registered across
/// bluetoothd (BlueZoo) restarting and the adapter going away and coming back; a reader on
/// hci1 finds the service again each time. (Disconnects are tested on real BlueZ in the VM
/// tier: BlueZoo does not report them.)
struct GattServerHostTests {
    static let serviceUUID: BluetoothUUID = "6a1d5c2e-0b7f-4e4a-9d3c-2f8e1a0b1001"

    final class Events: Sendable {
        private final class Storage: Sendable {
            let events = Mutex<[GattHostEvent]>([])
        }
        private let storage = Storage()
        let task: Task<Void, Never>
        init(_ stream: AsyncStream<GattHostEvent>) {
            let storage = self.storage
            task = Task { for await e in stream { storage.events.withLock { $0.append(e) } } }
        }
        var all: [GattHostEvent] { storage.events.withLock { $0 } }
        var registrations: Int { all.filter { $0 == .registered }.count }
        var losses: [GattHostLoss] {
            all.compactMap {
                if case .lost(let loss) = $0 { return loss }
                return nil
            }
        }
        func wait(registrations count: Int) async throws {
            for _ in 0..<400 where registrations < count { try await Task.sleep(for: .milliseconds(25)) }
            #expect(registrations >= count, "registrations: \(registrations), events: \(all)")
        }
    }

    static func makeHost(_ client: BlueZClient) throws -> GattServerHost {
        let application = try GattApplication(
            path: "/host/gatt",
            services: [
                GattServiceDescription(
                    uuid: serviceUUID,
                    characteristics: [
                        GattCharacteristicDescription(
                            uuid: "6a1d5c2e-0b7f-4e4a-9d3c-2f8e1a0b1002", flags: [.writeWithoutResponse])
                    ])
            ])
        return GattServerHost(
            client: client, adapter: "hci0", application: application,
            advertisement: LEAdvertisement(
                path: "/host/advertisement", serviceUUIDs: [serviceUUID], localName: "host", discoverable: true),
            retryInterval: .milliseconds(200))
    }

    /// The service is visible in hci0's UUIDs and a scan from hci1 finds it.
    static func expectServed(_ client: BlueZClient) async throws {
        #expect(try await client.adapter(named: "hci0").info().uuids.contains(serviceUUID))
        let device = try await client.adapter(named: "hci1").discoverDevice(
            advertising: serviceUUID, timeout: .seconds(15))
        #expect(device.path == "/org/bluez/hci1/dev_00_00_00_00_AA_01")
    }

    @Test func registersAgainAfterBluetoothdRestarts() async throws {
        try await BlueZooBus.with { bus in
            let client = try await BlueZClient.connect(busAddress: bus.address)
            let host = try Self.makeHost(client)
            let events = Events(try await host.start())
            try await events.wait(registrations: 1)
            try await Self.expectServed(client)

            try await bus.restartMock()
            try await events.wait(registrations: 2)
            #expect(events.losses == [.serviceStopped])
            #expect(await host.isRegistered)
            try await Self.expectServed(client)

            await host.stop()
            #expect(try await !client.adapter(named: "hci0").info().uuids.contains(Self.serviceUUID))
            events.task.cancel()
            await client.connection.close()
        }
    }

    @Test func registersAgainWhenTheAdapterComesBack() async throws {
        try await BlueZooBus.with { bus in
            let client = try await BlueZClient.connect(busAddress: bus.address)
            let host = try Self.makeHost(client)
            let events = Events(try await host.start())
            try await events.wait(registrations: 1)
            _ = try await client.connection.call(
                destination: "org.bluez", path: "/org/bluezoo", interface: "org.bluezoo.Manager1",
                member: "RemoveAdapter", body: [.byte(0)])
            for _ in 0..<200 where events.losses.isEmpty { try await Task.sleep(for: .milliseconds(25)) }
            #expect(events.losses == [.adapterRemoved])
            _ = try await client.connection.call(
                destination: "org.bluez", path: "/org/bluezoo", interface: "org.bluezoo.Manager1",
                member: "AddAdapter", body: [.byte(0), .string("00:00:00:00:AA:01")])
            try await events.wait(registrations: 2)
            try await Self.expectServed(client)
            await host.stop()
            events.task.cancel()
            await client.connection.close()
        }
    }

    @Test func startingWithoutBluetoothdWaitsWhenAsked() async throws {
        try await BlueZooBus.with { bus in
            try await bus.stopMock()
            let client = try await BlueZClient.connect(busAddress: bus.address)
            let failing = try Self.makeHost(client)
            await #expect(throws: BlueZError.serviceUnavailable) { _ = try await failing.start() }

            let host = try Self.makeHost(client)
            let events = Events(try await host.start(waitForBlueZ: true))
            #expect(await !host.isRegistered)
            try await bus.restartMock()
            try await events.wait(registrations: 1)
            try await Self.expectServed(client)
            await host.stop()
            events.task.cancel()
            await client.connection.close()
        }
    }
}

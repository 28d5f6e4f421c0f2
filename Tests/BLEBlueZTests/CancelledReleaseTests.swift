import BLEBlueZ
import BLETransport
import BlueZ
import TestSupport
import Testing

/// The BlueZ roles let go also when the task that asks is cancelled: a D-Bus call made from
/// a cancelled task is abandoned at once, so ``BlueZMdocGattServer/stop()`` and
/// ``BlueZMdocGattClient/disconnect()`` make theirs from a task of their own. A session
/// that is cancelled, or that ends on an event its cancelled pump fed, still removes its
/// service and advertisement and lets the other side go (through BlueZoo on a private bus).
struct CancelledReleaseTests {
    /// Runs `body` in a task that is cancelled before `body` begins.
    static func inCancelledTask(_ body: @escaping @Sendable () async -> Void) async {
        let task = Task {
            while !Task.isCancelled { await Task.yield() }
            await body()
        }
        task.cancel()
        await task.value
    }

    /// Whether a device of `adapter` is connected, as BlueZ says.
    static func connectedDevice(_ client: BlueZClient, on adapter: String) async throws -> Bool {
        try await client.managedObjects().contains { path, interfaces in
            guard path.rawValue.hasPrefix("/org/bluez/\(adapter)/dev_") else { return false }
            return interfaces["org.bluez.Device1"]?["Connected"]?.boolValue == true
        }
    }

    @Test func aCancelledTaskStillUnregistersTheServiceAndDisconnects() async throws {
        try await BlueZooBus.with { bus in
            let server = try await SharedRolesTests.roles(.holder, bus: bus, adapter: "hci0").server
            let client = try await SharedRolesTests.roles(.reader, bus: bus, adapter: "hci1").client
            let bluez = try await BlueZClient.connect(busAddress: bus.address)
            let uuid = BluetoothUUID(high: .random(in: 1...UInt64.max), low: .random(in: 1...UInt64.max))
            _ = try await server.start(.peripheralServer(uuid))
            #expect(try await bluez.adapter(named: "hci0").info().uuids.contains(uuid))
            _ = try await client.connect(serviceUUID: uuid, characteristics: MdocBluetoothUUIDs.peripheralServer)
            try await client.subscribe()
            #expect(try await Self.connectedDevice(bluez, on: "hci1"))

            await Self.inCancelledTask { await client.disconnect() }
            #expect(try await !Self.connectedDevice(bluez, on: "hci1"))
            await Self.inCancelledTask { await server.stop() }
            #expect(try await !bluez.adapter(named: "hci0").info().uuids.contains(uuid))
        }
    }
}

import BlueZ
import DBus
import TestSupport
import Testing

struct BlueZAdapterTests {
    @Test func bothAdaptersAreFoundAndPowered() async throws {
        try await BlueZooBus.with { bus in
            let client = try await BlueZClient.connect(busAddress: bus.address)
            #expect(try await client.isServiceRunning())
            let adapters = try await client.adapters()
            #expect(adapters.map(\.name) == ["hci0", "hci1"])
            #expect(adapters.map(\.address) == ["00:00:00:00:AA:01", "00:00:00:00:BB:02"])
            #expect(adapters.allSatisfy { $0.powered })
            let hci0 = try await client.adapter(named: "hci0")
            #expect(hci0.path == "/org/bluez/hci0")
            try await hci0.powerOn()
            let info = try await hci0.info()
            #expect(info.powered)
            #expect(!info.localName.isEmpty)
            let missing = await #expect(throws: BlueZError.self) { try await client.adapter(named: "hci7") }
            #expect(missing == .adapterNotFound("hci7"))
            await client.connection.close()
        }
    }

    @Test func powerChangesAreReportedAsEvents() async throws {
        try await BlueZooBus.with { bus in
            let client = try await BlueZClient.connect(busAddress: bus.address)
            let events = try await client.events()
            let hci1 = try await client.adapter(named: "hci1")
            try await hci1.setPowered(false)
            #expect(try await hci1.info().powered == false)
            try await hci1.powerOn()
            #expect(try await hci1.info().powered)
            var seen: [BlueZEvent] = []
            for await event in events {
                seen.append(event)
                if event == .adapterPowered(name: "hci1", powered: true) { break }
            }
            #expect(seen.first == .adapterPowered(name: "hci1", powered: false))
            await client.connection.close()
        }
    }

    @Test func adapterRemovalAndServiceRestartAreReported() async throws {
        try await BlueZooBus.with { bus in
            let client = try await BlueZClient.connect(busAddress: bus.address)
            let events = try await client.events()
            // BlueZoo's own controller removes and re-adds an adapter.
            _ = try await client.connection.call(
                destination: "org.bluez", path: "/org/bluezoo", interface: "org.bluezoo.Manager1",
                member: "RemoveAdapter", body: [.byte(1)])
            #expect(try await client.adapters().map(\.name) == ["hci0"])
            _ = try await client.connection.call(
                destination: "org.bluez", path: "/org/bluezoo", interface: "org.bluezoo.Manager1",
                member: "AddAdapter", body: [.byte(1), .string("00:00:00:00:BB:02")])
            // bluetoothd "restarts".
            try await bus.restartMock()
            var seen: [BlueZEvent] = []
            for await event in events {
                if case .adapterPowered = event { continue }
                seen.append(event)
                if seen.count == 6 { break }
            }
            #expect(seen.count == 6)
            guard seen.count == 6 else { return }
            #expect(seen[0] == .adapterRemoved(name: "hci1"))
            guard case .adapterAdded(let readded) = seen[1] else {
                Issue.record("expected hci1 back, got \(seen[1])")
                return
            }
            #expect(readded.name == "hci1")
            #expect(readded.address == "00:00:00:00:BB:02")
            #expect(seen[2] == .serviceVanished)
            #expect(seen[3] == .serviceAppeared)
            let added = seen[4...].compactMap { event -> String? in
                if case .adapterAdded(let info) = event { return info.name }
                return nil
            }
            #expect(added.sorted() == ["hci0", "hci1"])
            // The client keeps working against the new bluetoothd.
            #expect(try await client.adapters().map(\.name) == ["hci0", "hci1"])
            await client.connection.close()
        }
    }

    @Test func aBlueZErrorKeepsItsName() async throws {
        try await BlueZooBus.with { bus in
            let client = try await BlueZClient.connect(busAddress: bus.address)
            let hci0 = try await client.adapter(named: "hci0")
            let error = await #expect(throws: BlueZError.self) {
                try await hci0.unregisterAdvertisement(at: "/never/registered")
            }
            #expect(error?.dbusErrorName == "org.bluez.Error.DoesNotExist")
            guard case .bluez(let name, _) = error else {
                Issue.record("expected a BlueZ error, got \(String(describing: error))")
                return
            }
            #expect(name == BlueZError.doesNotExistName)
            await client.connection.close()
        }
    }

    @Test func withoutBluetoothdCallsFailAsServiceUnavailable() async throws {
        try await BlueZooBus.with { bus in
            let client = try await BlueZClient.connect(busAddress: bus.address)
            try await bus.stopMock()
            #expect(try await client.isServiceRunning() == false)
            let error = await #expect(throws: BlueZError.self) { _ = try await client.adapters() }
            #expect(error == .serviceUnavailable)
            await client.connection.close()
        }
    }
}

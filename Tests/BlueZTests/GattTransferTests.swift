import BlueZ
import DBus
import Synchronization
import TestSupport
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// hci0 plays the GATT server (advertisement + application), hci1 the client, each on its
/// own D-Bus connection, through BlueZoo.
struct GattTransferTests {
    static let serviceUUID: BluetoothUUID = "6a1d5c2e-0b7f-4e4a-9d3c-2f8e1a0b0001"
    static let writeUUID: BluetoothUUID = "6a1d5c2e-0b7f-4e4a-9d3c-2f8e1a0b0002"
    static let notifyUUID: BluetoothUUID = "6a1d5c2e-0b7f-4e4a-9d3c-2f8e1a0b0003"
    static let readUUID: BluetoothUUID = "6a1d5c2e-0b7f-4e4a-9d3c-2f8e1a0b0004"

    static func makeApplication(acquireNotify: Bool = false) throws -> GattApplication {
        try GattApplication(
            path: "/holder/gatt",
            services: [
                GattServiceDescription(
                    uuid: serviceUUID,
                    characteristics: [
                        GattCharacteristicDescription(uuid: writeUUID, flags: [.writeWithoutResponse]),
                        GattCharacteristicDescription(
                            uuid: notifyUUID, flags: [.notify], acquireNotify: acquireNotify),
                        GattCharacteristicDescription(uuid: readUUID, flags: [.read], value: [0x01, 0x02, 0x03]),
                    ])
            ])
    }

    /// Collects the server's events on a task; `wait` returns once `condition` holds.
    final class EventLog: Sendable {
        private final class Storage: Sendable {
            let events = Mutex<[GattServerEvent]>([])
        }
        private let storage = Storage()
        private let task: Task<Void, Never>

        init(_ stream: AsyncStream<GattServerEvent>) {
            let storage = self.storage
            task = Task {
                for await event in stream { storage.events.withLock { $0.append(event) } }
            }
        }

        var all: [GattServerEvent] { storage.events.withLock { $0 } }

        func wait(
            timeout: Duration = .seconds(10), until condition: @Sendable ([GattServerEvent]) -> Bool
        ) async throws {
            let clock = ContinuousClock()
            let deadline = clock.now + timeout
            while !condition(all) {
                guard clock.now < deadline else {
                    Issue.record("server events did not arrive in time: \(all.count) so far")
                    throw BlueZError.timedOut("server events")
                }
                try await Task.sleep(for: .milliseconds(5))
            }
        }

        func cancel() { task.cancel() }
    }

    /// Registers the server on hci0, discovers and connects from hci1; runs `body`.
    static func withConnectedPair(
        acquireNotify: Bool = false,
        _ body: (GattApplication, EventLog, BlueZDevice, BlueZAdapter, AdvertisementRegistration) async throws -> Void
    ) async throws {
        try await BlueZooBus.with { bus in
            let holder = try await BlueZClient.connect(busAddress: bus.address)
            let reader = try await BlueZClient.connect(busAddress: bus.address)
            let hci0 = try await holder.adapter(named: "hci0")
            let hci1 = try await reader.adapter(named: "hci1")
            try await hci0.powerOn()
            try await hci1.powerOn()

            let application = try makeApplication(acquireNotify: acquireNotify)
            let log = EventLog(application.events)
            try await hci0.register(application)
            #expect(try await hci0.info().uuids.contains(serviceUUID))
            let advertisement = try await hci0.register(
                LEAdvertisement(
                    path: "/holder/advertisement0", serviceUUIDs: [serviceUUID], localName: "holder",
                    discoverable: true, includes: ["tx-power"]))

            let device = try await hci1.discoverDevice(advertising: serviceUUID, timeout: .seconds(15))
            #expect(device.path == "/org/bluez/hci1/dev_00_00_00_00_AA_01")
            #expect(try await device.info().advertises(serviceUUID))
            try await device.connect(timeout: .seconds(15))
            #expect(try await device.info().servicesResolved)

            try await body(application, log, device, hci0, advertisement)

            log.cancel()
            await holder.connection.close()
            await reader.connection.close()
        }
    }

    @Test func writesAndNotificationsFlowInOrder() async throws {
        try await Self.withConnectedPair { application, log, device, hci0, advertisement in
            let services = try await device.services()
            #expect(services.map(\.uuid) == [Self.serviceUUID])
            #expect(
                Set(services.first?.characteristics.map(\.uuid) ?? []) == [
                    Self.writeUUID, Self.notifyUUID, Self.readUUID,
                ])
            let write = try await device.characteristic(Self.writeUUID, inService: Self.serviceUUID)
            let notify = try await device.characteristic(Self.notifyUUID, inService: Self.serviceUUID)
            let read = try await device.characteristic(Self.readUUID, inService: Self.serviceUUID)
            #expect(write.flags == ["write-without-response"])
            #expect(notify.flags == ["notify"])

            // Read.
            #expect(try await read.read() == [0x01, 0x02, 0x03])
            try application.setValue([0x09], of: Self.readUUID)
            #expect(try await read.read() == [0x09])

            // 600 bytes in several writes without response, in order at the server.
            let message = (0..<600).map { UInt8(truncatingIfNeeded: $0 * 7 + 3) }
            var offset = 0
            while offset < message.count {
                let end = min(offset + 180, message.count)
                try await write.write(Array(message[offset..<end]), type: .command)
                offset = end
            }
            try await log.wait { events in
                events.reduce(0) { count, event in
                    if case .write(_, let value, _) = event { return count + value.count }
                    return count
                } >= 600
            }
            let writes = log.all.compactMap { event -> ([UInt8], GattRequest)? in
                if case .write(let uuid, let value, let request) = event, uuid == Self.writeUUID {
                    return (value, request)
                }
                return nil
            }
            #expect(writes.map(\.0.count) == [180, 180, 180, 60])
            #expect(writes.flatMap(\.0) == message)
            #expect(writes.allSatisfy { $0.1.writeType == .command && !$0.1.viaSocket })
            #expect(writes.first?.1.device == "/org/bluez/hci0/dev_00_00_00_00_BB_02")
            #expect(writes.first?.1.mtu == 512)

            // Notifications: 100 × 512 bytes, each sent after the previous one went out.
            await #expect(throws: BlueZError.notSubscribed(Self.notifyUUID)) {
                try await application.notify(Self.notifyUUID, [0])
            }
            let values = try await notify.startNotifications()
            try await log.wait { events in
                events.contains { $0 == .notificationsStarted(characteristic: Self.notifyUUID, request: GattRequest()) }
            }
            #expect(application.isSubscribed(Self.notifyUUID))
            let chunks = (0..<100).map { index in
                [UInt8(index)] + (1..<512).map { UInt8(truncatingIfNeeded: $0 &+ index) }
            }
            let clock = ContinuousClock()
            let start = clock.now
            let sender = Task {
                for chunk in chunks { try await application.notify(Self.notifyUUID, chunk) }
                return clock.now - start
            }
            var received: [[UInt8]] = []
            for await value in values {
                received.append(value)
                if received.count == chunks.count { break }
            }
            let elapsed = clock.now - start
            let sendTime = try await sender.value
            #expect(received.count == 100)
            #expect(received.map { $0.first } == chunks.map { $0.first })
            #expect(received == chunks)
            print("100 notifications of 512 bytes through BlueZoo: sent in \(sendTime), received in \(elapsed)")

            try await notify.stopNotifications()
            try await log.wait { events in events.contains(.notificationsStopped(characteristic: Self.notifyUUID)) }
            #expect(!application.isSubscribed(Self.notifyUUID))

            // Disconnecting and unregistering.
            try await device.disconnect()
            #expect(try await device.info().connected == false)
            try await advertisement.unregister()
            try await hci0.unregister(application)
            #expect(!(try await hci0.info().uuids.contains(Self.serviceUUID)))
            await #expect(throws: BlueZError.self) { try await application.notify(Self.notifyUUID, [1]) }
        }
    }

    @Test func notificationsThroughAnAcquiredSocket() async throws {
        try await Self.withConnectedPair(acquireNotify: true) { application, log, device, hci0, advertisement in
            let notify = try await device.characteristic(Self.notifyUUID, inService: Self.serviceUUID)
            let values = try await notify.startNotifications()
            // BlueZoo answers the client's StartNotify by calling AcquireNotify on the server.
            try await log.wait { events in
                events.contains { event in
                    if case .notificationsStarted(Self.notifyUUID, let request) = event { return request.viaSocket }
                    return false
                }
            }
            #expect(application.isSubscribed(Self.notifyUUID))
            let chunks = (0..<20).map { index in [UInt8](repeating: UInt8(index), count: 512) }
            let sender = Task {
                for chunk in chunks { try await application.notify(Self.notifyUUID, chunk) }
            }
            var received: [[UInt8]] = []
            for await value in values {
                received.append(value)
                if received.count == chunks.count { break }
            }
            try await sender.value
            #expect(received == chunks)
            try await advertisement.unregister()
            try await hci0.unregister(application)
        }
    }

    @Test func aReleasedAdvertisementIsReported() async throws {
        try await BlueZooBus.with { bus in
            let holder = try await BlueZClient.connect(busAddress: bus.address)
            let peer = try await DBusConnection.connect(address: bus.address)
            let hci0 = try await holder.adapter(named: "hci0")
            let advertisement = LEAdvertisement(
                path: "/holder/advertisement0", serviceUUIDs: [Self.serviceUUID], localName: "holder",
                includes: ["tx-power"], serviceData: [Self.serviceUUID: [1, 2]], manufacturerData: [0xFFFF: [3]])
            let registration = try await hci0.register(advertisement)
            let holderName = await holder.connection.uniqueName
            let properties = try await peer.getAllProperties(
                destination: holderName, path: advertisement.path, interface: BlueZInterface.advertisement)
            #expect(properties["Type"] == .string("peripheral"))
            #expect(properties["Discoverable"] == .boolean(true))
            #expect(properties["ServiceUUIDs"]?.stringArrayValue == [Self.serviceUUID.rawValue])
            #expect(properties["ServiceData"]?.propertiesValue?[Self.serviceUUID.rawValue] == .bytes([1, 2]))
            #expect(!registration.isReleased)
            // As bluetoothd does when it drops an advertisement.
            _ = try await peer.call(
                destination: holderName, path: advertisement.path, interface: BlueZInterface.advertisement,
                member: "Release")
            for await _ in registration.releases { break }
            #expect(registration.isReleased)
            try await registration.unregister()  // only removes the export now
            await peer.close()
            await holder.connection.close()
        }
    }

    @Test func anAcquiredWriteSocketDeliversPackets() async throws {
        // Plays bluetoothd's side of AcquireWrite directly (BlueZoo forwards it wrongly).
        try await BlueZooBus.with { bus in
            let holder = try await BlueZClient.connect(busAddress: bus.address)
            let peer = try await DBusConnection.connect(address: bus.address)
            let application = try GattApplication(
                path: "/holder/gatt",
                services: [
                    GattServiceDescription(
                        uuid: Self.serviceUUID,
                        characteristics: [
                            GattCharacteristicDescription(
                                uuid: Self.writeUUID, flags: [.writeWithoutResponse], acquireWrite: true)
                        ])
                ])
            let log = EventLog(application.events)
            let hci0 = try await holder.adapter(named: "hci0")
            try await hci0.register(application)
            let holderName = await holder.connection.uniqueName
            let path = try #require(application.path(of: Self.writeUUID))
            let properties = try await peer.getAllProperties(
                destination: holderName, path: path, interface: BlueZInterface.gattCharacteristic)
            #expect(properties["WriteAcquired"] == .boolean(false))
            let reply = try await peer.call(
                destination: holderName, path: path, interface: BlueZInterface.gattCharacteristic,
                member: "AcquireWrite",
                body: [.properties(["mtu": .uint16(185), "device": .objectPath("/org/bluez/hci0/dev_11")])])
            #expect(reply.map(\.signature).joined() == "hq")
            #expect(reply.last == .uint16(185))
            let socket = try #require(reply.first?.fileDescriptorValue)
            #expect(
                try await peer.getProperty(
                    destination: holderName, path: path, interface: BlueZInterface.gattCharacteristic,
                    name: "WriteAcquired") == .boolean(true))
            let again = await #expect(throws: DBusError.self) {
                _ = try await peer.call(
                    destination: holderName, path: path, interface: BlueZInterface.gattCharacteristic,
                    member: "AcquireWrite", body: [.properties([:])])
            }
            #expect(again?.name == BlueZError.notPermittedName)
            let packets = (0..<10).map { [UInt8](repeating: UInt8($0), count: 100 + $0) }
            for packet in packets {
                _ = packet.withUnsafeBytes { send(socket.rawValue, $0.baseAddress, $0.count, 0) }
            }
            try await log.wait { events in
                events.filter { if case .write = $0 { return true } else { return false } }.count == packets.count
            }
            let writes = log.all.compactMap { event -> ([UInt8], GattRequest)? in
                if case .write(_, let value, let request) = event { return (value, request) }
                return nil
            }
            #expect(writes.map(\.0) == packets)
            #expect(writes.allSatisfy { $0.1.viaSocket && $0.1.writeType == .command && $0.1.mtu == 185 })
            #expect(writes.first?.1.device == "/org/bluez/hci0/dev_11")
            // Closing the peer's end releases the socket.
            shutdown(socket.rawValue, Int32(SHUT_RDWR))
            try await log.wait { events in events.contains(.writeReleased(characteristic: Self.writeUUID)) }
            try await hci0.unregister(application)
            log.cancel()
            await peer.close()
            await holder.connection.close()
        }
    }
}

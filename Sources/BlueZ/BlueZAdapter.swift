import DBus

/// An adapter's state as BlueZ reports it (`org.bluez.Adapter1`).
public struct AdapterInfo: Sendable, Equatable {
    public var path: DBusObjectPath
    /// `hci0`.
    public var name: String { path.lastElement }
    /// `00:00:00:00:AA:01`.
    public var address: String
    /// The adapter's Bluetooth name (`Name`).
    public var localName: String
    public var alias: String
    public var powered: Bool
    public var discoverable: Bool
    public var discovering: Bool
    public var uuids: [BluetoothUUID]

    init(path: DBusObjectPath, properties: [String: DBusValue]) {
        self.path = path
        address = properties["Address"]?.stringValue ?? ""
        localName = properties["Name"]?.stringValue ?? ""
        alias = properties["Alias"]?.stringValue ?? localName
        powered = properties["Powered"]?.boolValue ?? false
        discoverable = properties["Discoverable"]?.boolValue ?? false
        discovering = properties["Discovering"]?.boolValue ?? false
        uuids = (properties["UUIDs"]?.stringArrayValue ?? []).compactMap(BluetoothUUID.init)
    }
}

/// Filter for ``BlueZAdapter/setDiscoveryFilter(_:)`` (`SetDiscoveryFilter`).
public struct DiscoveryFilter: Sendable, Equatable {
    public enum Transport: String, Sendable {
        case auto
        case le
        case bredr
    }
    public var serviceUUIDs: [BluetoothUUID]
    public var transport: Transport
    /// Report every advertisement, not only changes.
    public var duplicateData: Bool?

    public init(serviceUUIDs: [BluetoothUUID] = [], transport: Transport = .le, duplicateData: Bool? = nil) {
        self.serviceUUIDs = serviceUUIDs
        self.transport = transport
        self.duplicateData = duplicateData
    }

    var dbusValue: DBusValue {
        var properties: [String: DBusValue] = ["Transport": .string(transport.rawValue)]
        if !serviceUUIDs.isEmpty { properties["UUIDs"] = .strings(serviceUUIDs.map(\.rawValue)) }
        if let duplicateData { properties["DuplicateData"] = .boolean(duplicateData) }
        return .properties(properties)
    }
}

/// One adapter (`/org/bluez/hci0`): power, advertising, GATT applications, discovery.
public struct BlueZAdapter: Sendable {
    public let client: BlueZClient
    public let path: DBusObjectPath
    /// `hci0`.
    public var name: String { path.lastElement }

    public init(client: BlueZClient, path: DBusObjectPath) {
        self.client = client
        self.path = path
    }

    /// The adapter's current state.
    public func info() async throws -> AdapterInfo {
        AdapterInfo(path: path, properties: try await client.properties(path, BlueZInterface.adapter))
    }

    /// Sets `Powered` and returns once the adapter reports the new state.
    public func setPowered(_ powered: Bool, timeout: Duration = .seconds(10)) async throws {
        try await client.setProperty(path, BlueZInterface.adapter, "Powered", .boolean(powered))
        try await client.waitForProperty(path, BlueZInterface.adapter, "Powered", timeout: timeout) {
            $0.boolValue == powered
        }
    }

    /// Powers the adapter on (no-op when already on).
    public func powerOn(timeout: Duration = .seconds(10)) async throws {
        if try await info().powered { return }
        try await setPowered(true, timeout: timeout)
    }

    // MARK: Advertising

    /// Exports `advertisement` and registers it with `LEAdvertisingManager1`.
    public func register(_ advertisement: LEAdvertisement) async throws -> AdvertisementRegistration {
        let registration = AdvertisementRegistration(adapter: self, advertisement: advertisement)
        try await registration.register()
        return registration
    }

    /// `UnregisterAdvertisement` for the object at `path` (normally done by
    /// ``AdvertisementRegistration/unregister()``).
    public func unregisterAdvertisement(at advertisementPath: DBusObjectPath) async throws {
        _ = try await client.call(
            path, BlueZInterface.advertisingManager, "UnregisterAdvertisement", [.objectPath(advertisementPath)])
    }

    // MARK: GATT server

    /// Exports `application` on this client's connection and registers it with
    /// `GattManager1` (BlueZ reads it back with `GetManagedObjects` before answering).
    public func register(_ application: GattApplication) async throws {
        try application.attach(to: client.connection)
        do {
            try await bluez { try await application.tree.export(on: client.connection) }
            _ = try await client.call(
                path, BlueZInterface.gattManager, "RegisterApplication",
                [.objectPath(application.path), .properties([:])])
        } catch {
            await application.tree.unexport(from: client.connection)
            application.detach()
            throw error
        }
    }

    /// Unregisters `application` and stops exporting it.
    public func unregister(_ application: GattApplication) async throws {
        defer { application.detach() }
        do {
            _ = try await client.call(
                path, BlueZInterface.gattManager, "UnregisterApplication", [.objectPath(application.path)])
        } catch {
            await application.tree.unexport(from: client.connection)
            throw error
        }
        await application.tree.unexport(from: client.connection)
    }

    // MARK: Discovery and devices

    public func setDiscoveryFilter(_ filter: DiscoveryFilter) async throws {
        _ = try await client.call(path, BlueZInterface.adapter, "SetDiscoveryFilter", [filter.dbusValue])
    }

    public func startDiscovery() async throws {
        _ = try await client.call(path, BlueZInterface.adapter, "StartDiscovery")
    }

    public func stopDiscovery() async throws {
        _ = try await client.call(path, BlueZInterface.adapter, "StopDiscovery")
    }

    /// `RemoveDevice`: BlueZ forgets the device (and disconnects it).
    public func removeDevice(at devicePath: DBusObjectPath) async throws {
        _ = try await client.call(path, BlueZInterface.adapter, "RemoveDevice", [.objectPath(devicePath)])
    }

    /// The devices BlueZ knows under this adapter.
    public func devices() async throws -> [DeviceInfo] {
        try await client.managedObjects().compactMap { objectPath, interfaces in
            guard objectPath.parent == path, let properties = interfaces[BlueZInterface.device] else { return nil }
            return DeviceInfo(path: objectPath, properties: properties)
        }.sorted { $0.address < $1.address }
    }

    /// Scans (LE, filtered by `serviceUUID`) until a device advertising `serviceUUID` (in
    /// its UUIDs or its service data) is known, and returns it. A device BlueZ already
    /// knows as advertising it is returned at once; other known devices that are neither
    /// connected, paired nor trusted are removed first (see below). Discovery is restarted
    /// every `rescanInterval` until then, and stopped before returning.
    public func discoverDevice(
        advertising serviceUUID: BluetoothUUID, timeout: Duration = .seconds(30),
        rescanInterval: Duration = .seconds(4)
    ) async throws -> BlueZDevice {
        let service = BlueZInterface.service
        let signals = try await bluez {
            try await client.connection.subscribe(anyOf: [
                DBusMatchRule(
                    sender: service, interface: DBusStandardInterface.objectManager, member: "InterfacesAdded"),
                .propertiesChanged(sender: service, pathNamespace: path, interface: BlueZInterface.device),
            ])
        }
        let known = try await devices()
        if let match = known.first(where: { $0.advertises(serviceUUID) }) {
            return BlueZDevice(client: client, path: match.path)
        }
        // BlueZ ignores the service UUIDs a device advertises once it has resolved that
        // device's GATT services, until it forgets the device (30 s after the link drops):
        // a device advertising a new UUID (an mdoc holder does, every session) would not be
        // found. Devices nobody uses or bonded with are forgotten first; BlueZ would drop
        // them anyway.
        for stale in known where !stale.connected && !stale.paired && !stale.trusted {
            try? await removeDevice(at: stale.path)
        }
        try await setDiscoveryFilter(DiscoveryFilter(serviceUUIDs: [serviceUUID], transport: .le))
        try await startDiscovery()
        let adapterPath = path
        let adapter = self
        let found: Result<DBusObjectPath, any Error>
        do {
            found = .success(
                try await withTimeout(timeout, "a device advertising \(serviceUUID)") {
                    try await withThrowingTaskGroup(of: DBusObjectPath?.self) { group in
                        group.addTask {
                            for await signal in signals {
                                if let match = Self.device(in: signal, under: adapterPath, advertising: serviceUUID) {
                                    return match
                                }
                            }
                            try Task.checkCancellation()
                            throw BlueZError.serviceUnavailable
                        }
                        group.addTask {
                            // Scanning again now and then: a controller may report an
                            // advertiser only when scanning is enabled, and a report that
                            // came before the kernel entered discovery is not repeated.
                            while true {
                                try await Task.sleep(for: rescanInterval)
                                try? await adapter.stopDiscovery()
                                try? await adapter.startDiscovery()
                            }
                        }
                        defer { group.cancelAll() }
                        guard let match = try await group.next() ?? nil else { throw BlueZError.serviceUnavailable }
                        return match
                    }
                })
        } catch {
            found = .failure(error)
        }
        try? await stopDiscovery()
        return BlueZDevice(client: client, path: try found.get())
    }

    private static func device(
        in signal: DBusMessage, under adapter: DBusObjectPath, advertising uuid: BluetoothUUID
    ) -> DBusObjectPath? {
        switch signal.member {
        case "InterfacesAdded":
            guard signal.body.count == 2, let devicePath = signal.body[0].objectPathValue, devicePath.parent == adapter,
                let properties = signal.body[1].interfacesValue?[BlueZInterface.device]
            else { return nil }
            return DeviceInfo(path: devicePath, properties: properties).advertises(uuid) ? devicePath : nil
        case "PropertiesChanged":
            guard let devicePath = signal.path, devicePath.parent == adapter, signal.body.count >= 2,
                let changed = signal.body[1].propertiesValue
            else { return nil }
            return DeviceInfo(path: devicePath, properties: changed).advertises(uuid) ? devicePath : nil
        default:
            return nil
        }
    }
}

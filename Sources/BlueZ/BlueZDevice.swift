import DBus

/// A remote device's state as BlueZ reports it (`org.bluez.Device1`).
public struct DeviceInfo: Sendable, Equatable {
    public var path: DBusObjectPath
    public var address: String
    /// `public` or `random` (LE).
    public var addressType: String?
    public var name: String?
    public var uuids: [BluetoothUUID]
    /// Keys of `ServiceData`.
    public var serviceDataUUIDs: [BluetoothUUID]
    public var connected: Bool
    public var servicesResolved: Bool
    public var paired: Bool
    public var trusted: Bool
    public var rssi: Int?

    init(path: DBusObjectPath, properties: [String: DBusValue]) {
        self.path = path
        address = properties["Address"]?.stringValue ?? ""
        addressType = properties["AddressType"]?.stringValue
        name = properties["Name"]?.stringValue
        uuids = (properties["UUIDs"]?.stringArrayValue ?? []).compactMap(BluetoothUUID.init)
        serviceDataUUIDs =
            (properties["ServiceData"]?.propertiesValue?.keys).map { $0.compactMap(BluetoothUUID.init) }
            ?? []
        connected = properties["Connected"]?.boolValue ?? false
        servicesResolved = properties["ServicesResolved"]?.boolValue ?? false
        paired = properties["Paired"]?.boolValue ?? false
        trusted = properties["Trusted"]?.boolValue ?? false
        rssi = properties["RSSI"]?.integerValue
    }

    /// True when `uuid` is in the advertised service UUIDs or service data.
    public func advertises(_ uuid: BluetoothUUID) -> Bool {
        uuids.contains(uuid) || serviceDataUUIDs.contains(uuid)
    }
}

/// A remote device (`/org/bluez/hci1/dev_00_00_00_00_AA_01`), GATT client side.
public struct BlueZDevice: Sendable {
    public let client: BlueZClient
    public let path: DBusObjectPath

    public init(client: BlueZClient, path: DBusObjectPath) {
        self.client = client
        self.path = path
    }

    public func info() async throws -> DeviceInfo {
        DeviceInfo(path: path, properties: try await client.properties(path, BlueZInterface.device))
    }

    /// `Device1.Connect`, then waits for `ServicesResolved`.
    public func connect(timeout: Duration = .seconds(30)) async throws {
        _ = try await client.call(path, BlueZInterface.device, "Connect", timeout: timeout)
        try await waitForServicesResolved(timeout: timeout)
    }

    /// `Device1.Disconnect`.
    public func disconnect() async throws {
        _ = try await client.call(path, BlueZInterface.device, "Disconnect")
    }

    public func waitForServicesResolved(timeout: Duration = .seconds(30)) async throws {
        try await client.waitForProperty(path, BlueZInterface.device, "ServicesResolved", timeout: timeout) {
            $0.boolValue == true
        }
    }

    /// The GATT services BlueZ resolved on this device.
    public func services() async throws -> [RemoteGattService] {
        let objects = try await client.managedObjects()
        return objects.compactMap { objectPath, interfaces -> RemoteGattService? in
            guard objectPath.parent == path, let properties = interfaces[BlueZInterface.gattService],
                let uuid = properties["UUID"]?.stringValue.flatMap(BluetoothUUID.init)
            else { return nil }
            let characteristics = objects.compactMap { charPath, charInterfaces -> RemoteCharacteristic? in
                guard let props = charInterfaces[BlueZInterface.gattCharacteristic],
                    props["Service"]?.objectPathValue == objectPath
                else { return nil }
                return RemoteCharacteristic(client: client, path: charPath, properties: props)
            }.sorted { $0.path < $1.path }
            return RemoteGattService(
                path: objectPath, uuid: uuid, primary: properties["Primary"]?.boolValue ?? true,
                characteristics: characteristics)
        }.sorted { $0.path < $1.path }
    }

    /// The characteristic `uuid` of service `serviceUUID`.
    public func characteristic(_ uuid: BluetoothUUID, inService serviceUUID: BluetoothUUID) async throws
        -> RemoteCharacteristic
    {
        guard let service = try await services().first(where: { $0.uuid == serviceUUID }) else {
            throw BlueZError.notFound("service \(serviceUUID) on \(path)")
        }
        guard let characteristic = service.characteristics.first(where: { $0.uuid == uuid }) else {
            throw BlueZError.notFound("characteristic \(uuid) in service \(serviceUUID)")
        }
        return characteristic
    }
}

/// A resolved GATT service on a remote device.
public struct RemoteGattService: Sendable {
    public let path: DBusObjectPath
    public let uuid: BluetoothUUID
    public let primary: Bool
    public let characteristics: [RemoteCharacteristic]
}

/// How a value is written (`WriteValue` option `type`).
public enum GattWriteType: String, Sendable, Equatable {
    /// Write without response.
    case command
    /// Write with response.
    case request
    /// Reliable (prepared) write.
    case reliable
}

/// A characteristic on a remote device (`org.bluez.GattCharacteristic1`, client side).
public struct RemoteCharacteristic: Sendable {
    public let client: BlueZClient
    public let path: DBusObjectPath
    public let uuid: BluetoothUUID
    /// `read`, `write-without-response`, `notify`, ….
    public let flags: [String]

    init(client: BlueZClient, path: DBusObjectPath, properties: [String: DBusValue]) {
        self.client = client
        self.path = path
        uuid = properties["UUID"]?.stringValue.flatMap(BluetoothUUID.init) ?? "00000000-0000-0000-0000-000000000000"
        flags = properties["Flags"]?.stringArrayValue ?? []
    }

    /// `ReadValue`.
    public func read(offset: Int = 0) async throws -> [UInt8] {
        var options: [String: DBusValue] = [:]
        if offset > 0 { options["offset"] = .uint16(UInt16(clamping: offset)) }
        let body = try await client.call(path, BlueZInterface.gattCharacteristic, "ReadValue", [.properties(options)])
        guard let bytes = body.first?.bytesValue else { throw BlueZError.unexpectedReply("ReadValue without ay") }
        return bytes
    }

    /// `WriteValue` with option `type`.
    public func write(_ value: [UInt8], type: GattWriteType = .command, offset: Int = 0) async throws {
        var options: [String: DBusValue] = ["type": .string(type.rawValue)]
        if offset > 0 { options["offset"] = .uint16(UInt16(clamping: offset)) }
        _ = try await client.call(
            path, BlueZInterface.gattCharacteristic, "WriteValue", [.bytes(value), .properties(options)])
    }

    /// `AcquireWrite`: a socket whose packets go out as Write Commands. Throws when BlueZ (or
    /// the stack under it) does not offer one; `WriteValue` still works then.
    public func acquireWrite() async throws -> GattWriteSocket {
        let body = try await client.call(
            path, BlueZInterface.gattCharacteristic, "AcquireWrite", [.properties([:])])
        guard body.count == 2, let descriptor = body[0].fileDescriptorValue, let mtu = body[1].integerValue else {
            throw BlueZError.unexpectedReply("AcquireWrite without (h, q)")
        }
        return try GattWriteSocket(descriptor, mtu: mtu)
    }

    /// The `MTU` BlueZ reports for this characteristic's link, if any.
    public func mtu() async throws -> Int? {
        try? await client.property(path, BlueZInterface.gattCharacteristic, "MTU").integerValue
    }

    /// Subscribes (`StartNotify`) and returns the notified values, in order (each a
    /// `PropertiesChanged` of `Value`). The stream ends when the consumer stops iterating;
    /// call ``stopNotifications()`` to unsubscribe on the device.
    public func startNotifications() async throws -> AsyncStream<[UInt8]> {
        let changes = try await bluez {
            try await client.connection.subscribe(
                .propertiesChanged(
                    sender: BlueZInterface.service, path: path, interface: BlueZInterface.gattCharacteristic))
        }
        _ = try await client.call(path, BlueZInterface.gattCharacteristic, "StartNotify")
        let (stream, continuation) = AsyncStream<[UInt8]>.makeStream()
        let forwarder = Task {
            for await change in changes {
                if let value = change.body.dropFirst().first?.propertiesValue?["Value"]?.bytesValue {
                    continuation.yield(value)
                }
            }
            continuation.finish()
        }
        continuation.onTermination = { _ in forwarder.cancel() }
        return stream
    }

    /// `StopNotify`.
    public func stopNotifications() async throws {
        _ = try await client.call(path, BlueZInterface.gattCharacteristic, "StopNotify")
    }
}

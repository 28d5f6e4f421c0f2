import DBus
import Synchronization

/// An LE advertisement to register with an adapter (`org.bluez.LEAdvertisement1`).
public struct LEAdvertisement: Sendable, Equatable {
    public enum Kind: String, Sendable {
        case peripheral
        case broadcast
    }

    /// Where the advertisement object is exported on the connection (unique per connection).
    public var path: DBusObjectPath
    public var type: Kind
    public var serviceUUIDs: [BluetoothUUID]
    public var localName: String?
    /// Sent as the `Discoverable` property when set (BlueZoo ignores an advertisement
    /// without `Discoverable: true`).
    public var discoverable: Bool?
    /// `tx-power`, `appearance`, `local-name`.
    public var includes: [String]
    public var serviceData: [BluetoothUUID: [UInt8]]
    public var manufacturerData: [UInt16: [UInt8]]
    public var appearance: UInt16?
    /// Seconds before BlueZ drops the advertisement (and calls `Release`).
    public var timeout: UInt16?

    public init(
        path: DBusObjectPath = "/advertisement0", type: Kind = .peripheral, serviceUUIDs: [BluetoothUUID] = [],
        localName: String? = nil, discoverable: Bool? = true, includes: [String] = [],
        serviceData: [BluetoothUUID: [UInt8]] = [:], manufacturerData: [UInt16: [UInt8]] = [:],
        appearance: UInt16? = nil, timeout: UInt16? = nil
    ) {
        self.path = path
        self.type = type
        self.serviceUUIDs = serviceUUIDs
        self.localName = localName
        self.discoverable = discoverable
        self.includes = includes
        self.serviceData = serviceData
        self.manufacturerData = manufacturerData
        self.appearance = appearance
        self.timeout = timeout
    }

    /// The `LEAdvertisement1` properties.
    var properties: [String: DBusValue] {
        var properties: [String: DBusValue] = [
            "Type": .string(type.rawValue),
            "ServiceUUIDs": .strings(serviceUUIDs.map(\.rawValue)),
            "Includes": .strings(includes),
        ]
        if let localName { properties["LocalName"] = .string(localName) }
        if let discoverable { properties["Discoverable"] = .boolean(discoverable) }
        if !serviceData.isEmpty {
            properties["ServiceData"] = .dictionary(
                key: .string, value: .variant,
                serviceData.sorted { $0.key < $1.key }.map {
                    DBusDictEntry(.string($0.key.rawValue), .variant(.bytes($0.value)))
                })
        }
        if !manufacturerData.isEmpty {
            properties["ManufacturerData"] = .dictionary(
                key: .uint16, value: .variant,
                manufacturerData.sorted { $0.key < $1.key }.map {
                    DBusDictEntry(.uint16($0.key), .variant(.bytes($0.value)))
                })
        }
        if let appearance { properties["Appearance"] = .uint16(appearance) }
        if let timeout { properties["Timeout"] = .uint16(timeout) }
        return properties
    }
}

/// A registered advertisement. BlueZ may drop it by itself (timeout, adapter reset): it then
/// calls `Release`, reported by ``isReleased`` and ``releases``.
public final class AdvertisementRegistration: Sendable {
    public let adapter: BlueZAdapter
    public let advertisement: LEAdvertisement
    /// Yields once when BlueZ calls `Release`; ends then, or when the advertisement is
    /// unregistered (so a task waiting on it ends with the registration).
    public let releases: AsyncStream<Void>

    private let releasesContinuation: AsyncStream<Void>.Continuation
    private let tree: DBusObjectTree
    private let state = Mutex(State())

    private struct State {
        var registered = false
        var released = false
    }

    init(adapter: BlueZAdapter, advertisement: LEAdvertisement) {
        self.adapter = adapter
        self.advertisement = advertisement
        let (releases, continuation) = AsyncStream<Void>.makeStream()
        self.releases = releases
        releasesContinuation = continuation
        tree = DBusObjectTree(root: advertisement.path)
        let interface = AdvertisementInterface(properties: advertisement.properties) { [weak self] in
            self?.state.withLock {
                $0.released = true
                $0.registered = false
            }
            continuation.yield()
            continuation.finish()
        }
        try? tree.add(advertisement.path, interfaces: [interface])
    }

    /// True once BlueZ has released the advertisement.
    public var isReleased: Bool { state.withLock { $0.released } }

    func register() async throws {
        let connection = adapter.client.connection
        try await bluez { try await tree.export(on: connection) }
        do {
            _ = try await adapter.client.call(
                adapter.path, BlueZInterface.advertisingManager, "RegisterAdvertisement",
                [.objectPath(advertisement.path), .properties([:])])
            state.withLock { $0.registered = true }
        } catch {
            await tree.unexport(from: connection)
            throw error
        }
    }

    /// `UnregisterAdvertisement`, then stops exporting the object. After a `Release` only
    /// the export is removed.
    public func unregister() async throws {
        let connection = adapter.client.connection
        let wasRegistered = state.withLock { state in
            defer { state.registered = false }
            return state.registered
        }
        var failure: (any Error)?
        if wasRegistered {
            do {
                try await adapter.unregisterAdvertisement(at: advertisement.path)
            } catch {
                failure = error
            }
        }
        await tree.unexport(from: connection)
        releasesContinuation.finish()
        if let failure { throw failure }
    }
}

/// The exported `org.bluez.LEAdvertisement1` object.
final class AdvertisementInterface: DBusInterface {
    let name = BlueZInterface.advertisement
    private let values: [String: DBusValue]
    private let onRelease: @Sendable () -> Void

    init(properties: [String: DBusValue], onRelease: @escaping @Sendable () -> Void) {
        values = properties
        self.onRelease = onRelease
    }

    var introspection: DBusInterfaceDescription {
        DBusInterfaceDescription(
            methods: [.init("Release")],
            properties: values.keys.sorted().map { .init($0, values[$0]?.signature ?? "v") })
    }

    func properties() -> [String: DBusValue] { values }

    func call(_ call: DBusMessage, on connection: isolated DBusConnection) -> DBusMethodResponse {
        guard call.member == "Release" else { return .error(.unknownMethod("no such method")) }
        onRelease()
        return .reply([])
    }
}

import BLETransport
import BlueZ

/// The reader's GATT link to a holder in mdoc peripheral-server mode, over BlueZ: finds the
/// device advertising the engagement's service UUID, connects, finds State, Client2Server
/// and Server2Client, subscribes to Server2Client and State (StartNotify; `PropertiesChanged`
/// of `Value`) and writes with `WriteValue` type=command.
struct BlueZReaderLink: ReaderGattLink {
    /// The ATT MTU assumed when BlueZ does not report one (BlueZoo's fixed MTU).
    static let defaultMTU = 512
    /// How often the link checks `Connected` (BlueZ reports a lost link only there).
    static let connectionPollInterval: Duration = .milliseconds(500)
    /// The cap on each D-Bus call made while closing.
    static let closeTimeout: Duration = .seconds(3)

    let device: BlueZDevice
    /// `00:00:00:00:AA:01`.
    let address: String
    /// Whether BlueZ reports the address as an LE random one.
    let randomAddress: Bool
    let state: RemoteCharacteristic
    let client2Server: RemoteCharacteristic
    let server2Client: RemoteCharacteristic
    /// The holder's L2CAP PSM characteristic, when it serves one.
    let l2capPSM: RemoteCharacteristic?
    let mtu: Int
    /// Whether the MTU came from BlueZ (else ``defaultMTU``).
    let mtuReported: Bool
    let events: AsyncStream<ReaderLinkEvent>
    private let forwarders: [Task<Void, Never>]

    /// Connects to the holder advertising `serviceUUID` through adapter `adapterName`.
    ///
    /// Each wait (discovery, connection) is bounded by `timeout`. Errors name the step
    /// that failed.
    static func open(
        client: BlueZClient, adapter adapterName: String, serviceUUID: BLEUUID, timeout: Duration,
        log: @Sendable (String) -> Void = { _ in }
    ) async throws(BLEReaderError) -> BlueZReaderLink {
        let adapter = try await poweredAdapter(client: client, name: adapterName)

        // BlueZ's text form of the service UUID; BLEUUID prints the same 8-4-4-4-12 form.
        guard let service = BluetoothUUID(serviceUUID.description) else {
            throw .serviceMissing(serviceUUID.description)
        }
        log("scanning on \(adapterName) for service \(service)")
        let device: BlueZDevice
        do {
            device = try await adapter.discoverDevice(advertising: service, timeout: timeout)
        } catch BlueZError.timedOut {
            throw .deviceNotFound(service: service.rawValue, seconds: timeout.seconds)
        } catch {
            throw .discoveryFailed("\(error)")
        }
        let info = try? await device.info()
        let address = info?.address ?? "\(device.path)"

        log("connecting to \(address)")
        do {
            try await device.connect(timeout: timeout)
        } catch {
            _ = await withDeadline(closeTimeout) { try? await device.disconnect() }
            throw .connectFailed(device: address, "\(error)")
        }

        do {
            return try await attach(
                device: device, address: address, randomAddress: info?.addressType == "random", service: service,
                log: log)
        } catch {
            _ = await withDeadline(closeTimeout) { try? await device.disconnect() }
            throw error
        }
    }

    /// Adapter `name`, powered on; errors name the step.
    static func poweredAdapter(client: BlueZClient, name: String) async throws(BLEReaderError) -> BlueZAdapter {
        let adapter: BlueZAdapter
        do {
            adapter = try await client.adapter(named: name)
        } catch BlueZError.adapterNotFound {
            throw .adapterNotFound(name)
        } catch BlueZError.serviceUnavailable {
            throw .bluetoothUnavailable
        } catch {
            throw .adapterLookupFailed(name, "\(error)")
        }
        do {
            try await adapter.powerOn()
        } catch {
            throw .adapterNotPowered(name, "\(error)")
        }
        return adapter
    }

    /// Finds the characteristics on a connected device and subscribes.
    private static func attach(
        device: BlueZDevice, address: String, randomAddress: Bool, service: BluetoothUUID,
        log: @Sendable (String) -> Void
    ) async throws(BLEReaderError) -> BlueZReaderLink {
        let services: [RemoteGattService]
        do {
            services = try await device.services()
        } catch {
            throw .connectFailed(device: address, "reading its GATT services: \(error)")
        }
        guard let mdoc = services.first(where: { $0.uuid == service }) else {
            throw .serviceMissing(service.rawValue)
        }
        func characteristic(_ name: String, _ uuid: BLEUUID) throws(BLEReaderError) -> RemoteCharacteristic {
            guard let c = mdoc.characteristics.first(where: { $0.uuid.rawValue == uuid.description }) else {
                throw .characteristicMissing(name: name, uuid: uuid.description)
            }
            return c
        }
        let uuids = MdocBLEUUIDs.peripheralServer
        let state = try characteristic("State", uuids.state)
        let client2Server = try characteristic("Client2Server", uuids.client2Server)
        let server2Client = try characteristic("Server2Client", uuids.server2Client)
        let l2capPSM = mdoc.characteristics.first { $0.uuid.rawValue == uuids.l2capPSM.description }

        let reported = await client2Server.mtuValue()
        let mtu = reported.flatMap { $0 >= MessageFragmenter.minimumMTU ? $0 : nil } ?? defaultMTU

        let server2ClientValues: AsyncStream<[UInt8]>
        let stateValues: AsyncStream<[UInt8]>
        do {
            server2ClientValues = try await server2Client.startNotifications()
        } catch {
            throw .subscribeFailed(name: "Server2Client", "\(error)")
        }
        do {
            stateValues = try await state.startNotifications()
        } catch {
            throw .subscribeFailed(name: "State", "\(error)")
        }

        let (events, continuation) = AsyncStream<ReaderLinkEvent>.makeStream()
        let forwarders = [
            Task {
                for await value in server2ClientValues { continuation.yield(.chunk(value)) }
            },
            Task {
                for await value in stateValues { continuation.yield(.state(value)) }
            },
            Task {
                // BlueZ reports a lost link by `Connected` turning false (or the device
                // object going away).
                while !Task.isCancelled {
                    try? await Task.sleep(for: connectionPollInterval)
                    if Task.isCancelled { return }
                    let info = try? await device.info()
                    if Task.isCancelled { return }
                    if info?.connected != true {
                        continuation.yield(.disconnected)
                        return
                    }
                }
            },
        ]
        continuation.onTermination = { _ in
            for task in forwarders { task.cancel() }
        }
        return BlueZReaderLink(
            device: device, address: address, randomAddress: randomAddress, state: state, client2Server: client2Server,
            server2Client: server2Client, l2capPSM: l2capPSM, mtu: mtu, mtuReported: reported != nil, events: events,
            forwarders: forwarders)
    }

    func start() async throws {
        try await state.write(BLEStateValue.start.value, type: .command)
    }

    func sendChunk(_ chunk: [UInt8]) async throws {
        try await client2Server.write(chunk, type: .command)
    }

    func close() async {
        for task in forwarders { task.cancel() }
        let (device, state, server2Client) = (device, state, server2Client)
        _ = await Self.withDeadline(Self.closeTimeout) { try? await server2Client.stopNotifications() }
        _ = await Self.withDeadline(Self.closeTimeout) { try? await state.stopNotifications() }
        _ = await Self.withDeadline(Self.closeTimeout) { try? await device.disconnect() }
    }

    /// Runs `body`, cancelling it after `duration`; true when it finished in time. D-Bus
    /// calls give up when cancelled.
    @discardableResult
    static func withDeadline(_ duration: Duration, _ body: @escaping @Sendable () async -> Void) async -> Bool {
        await withTaskGroup(of: Bool.self) { group in
            group.addTask {
                await body()
                return true
            }
            group.addTask {
                try? await Task.sleep(for: duration)
                return false
            }
            let first = await group.next() ?? false
            group.cancelAll()
            return first
        }
    }
}

extension RemoteCharacteristic {
    /// The `MTU` property, when BlueZ has one for this link.
    fileprivate func mtuValue() async -> Int? {
        (try? await mtu()) ?? nil
    }
}

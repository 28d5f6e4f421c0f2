import DBus

/// What a ``GattServerHost`` reports besides the application's own events.
public enum GattHostEvent: Sendable, Equatable {
    /// The application and the advertisement are registered with BlueZ: at start, and again
    /// after bluetoothd restarted or the adapter came back.
    case registered
    /// BlueZ lost the registrations (bluetoothd stopped, or the adapter went away); the
    /// host registers them again as soon as BlueZ and the adapter are back.
    case lost(GattHostLoss)
    /// A remote device connected to the adapter (`Device1.Connected` turned true).
    case deviceConnected(DBusObjectPath)
    /// A remote device's link went down (`Connected` turned false, or its object was removed).
    case deviceDisconnected(DBusObjectPath)
}

/// Why registrations were lost.
public enum GattHostLoss: Sendable, Equatable, CustomStringConvertible {
    case serviceStopped
    case adapterRemoved

    public var description: String {
        switch self {
        case .serviceStopped: "bluetoothd stopped"
        case .adapterRemoved: "the adapter went away"
        }
    }
}

/// Keeps a GATT application and an LE advertisement registered on one adapter for as long
/// as it runs, following `org.bluez`'s name owner and the adapter: when bluetoothd restarts
/// or the adapter disappears and returns, it registers both again by itself. It also reports
/// remote devices connecting to and disconnecting from the adapter.
///
/// No call waits on a remote device; calls to BlueZ made while stopping are bounded.
public actor GattServerHost {
    public let client: BlueZClient
    public let adapterName: String
    public let application: GattApplication
    public let advertisement: LEAdvertisement
    /// The pause between attempts when registering again fails while BlueZ is up.
    public let retryInterval: Duration
    /// The cap on each BlueZ call made by ``stop()`` and ``disconnect(_:)``.
    public let callTimeout: Duration

    private var adapter: BlueZAdapter?
    private var applicationRegistered = false
    private var registration: AdvertisementRegistration?
    private var running = false
    private var reconciling = false
    private var tasks: [Task<Void, Never>] = []
    /// Follows the current advertisement registration's `Release`.
    private var releaseWatch: Task<Void, Never>?
    private var continuation: AsyncStream<GattHostEvent>.Continuation?

    public init(
        client: BlueZClient, adapter: String, application: GattApplication, advertisement: LEAdvertisement,
        retryInterval: Duration = .seconds(1), callTimeout: Duration = .seconds(3)
    ) {
        self.client = client
        self.adapterName = adapter
        self.application = application
        self.advertisement = advertisement
        self.retryInterval = retryInterval
        self.callTimeout = callTimeout
    }

    /// True while both the application and the advertisement are registered.
    public var isRegistered: Bool { applicationRegistered && registration != nil }

    /// Registers the application and the advertisement and follows BlueZ until ``stop()``.
    ///
    /// When the first registration fails, this throws, unless `waitForBlueZ` is set and the
    /// failure is BlueZ or the adapter being absent: it then registers as soon as they
    /// appear (``GattHostEvent/registered``).
    public func start(waitForBlueZ: Bool = false) async throws -> AsyncStream<GattHostEvent> {
        guard !running else { throw BlueZError.invalidState("the GATT server host is already running") }
        let adapterPath = try DBusObjectPath("/org/bluez/\(adapterName)")
        // Subscribed before registering, so no change is missed.
        let bluezEvents = try await client.events()
        let deviceSignals = try await client.subscribe(anyOf: [
            .propertiesChanged(
                sender: BlueZInterface.service, pathNamespace: adapterPath, interface: BlueZInterface.device),
            DBusMatchRule(
                sender: BlueZInterface.service, interface: DBusStandardInterface.objectManager,
                member: "InterfacesRemoved"),
        ])
        let (stream, continuation) = AsyncStream<GattHostEvent>.makeStream()
        running = true
        self.continuation = continuation
        do {
            try await register()
            continuation.yield(.registered)
        } catch let error as BlueZError where waitForBlueZ && Self.isAbsence(error) {
            // Registered when BlueZ or the adapter comes back (events below).
        } catch {
            running = false
            self.continuation = nil
            continuation.finish()
            throw error
        }
        tasks += [
            Task { [weak self] in
                for await event in bluezEvents { await self?.handle(event) }
            },
            Task { [weak self] in
                for await signal in deviceSignals { await self?.handle(signal, under: adapterPath) }
            },
        ]
        return stream
    }

    /// Stops following BlueZ, unregisters the advertisement and the application, and ends
    /// the event stream.
    public func stop() async {
        guard running else { return }
        running = false
        for task in tasks { task.cancel() }
        tasks = []
        releaseWatch?.cancel()
        releaseWatch = nil
        await dropRegistrations()
        continuation?.finish()
        continuation = nil
    }

    /// Registers the advertisement again (unregister, register). Some controllers report an
    /// advertiser to a scanner only when advertising or scanning is switched on (btvirt does:
    /// TESTING.md pitfall 7), so a scanner that started after the advertisement may never see
    /// it; a server waiting for its first client can cycle the advertisement now and then.
    public func readvertise() async {
        guard running, let current = registration else { return }
        registration = nil
        _ = try? await withTimeout(callTimeout, "UnregisterAdvertisement") { try await current.unregister() }
        try? await register()
    }

    /// Disconnects a remote device from the adapter when it is still connected (bounded by
    /// ``callTimeout``).
    public func disconnect(_ device: DBusObjectPath) async {
        let device = BlueZDevice(client: client, path: device)
        _ = try? await withTimeout(callTimeout, "Disconnect") {
            guard try await device.info().connected else { return }
            try await device.disconnect()
        }
    }

    // MARK: - Following BlueZ

    private func handle(_ event: BlueZEvent) async {
        guard running else { return }
        switch event {
        case .serviceVanished:
            await lose(.serviceStopped)
        case .adapterRemoved(let name) where name == adapterName:
            await lose(.adapterRemoved)
        case .serviceAppeared:
            await reconcile()
        case .adapterAdded(let info) where info.name == adapterName:
            await reconcile()
        case .adapterPowered(let name, true) where name == adapterName:
            await reconcile()
        default:
            break
        }
    }

    private func handle(_ signal: DBusMessage, under adapterPath: DBusObjectPath) {
        guard running, let continuation else { return }
        switch signal.member {
        case "PropertiesChanged":
            guard let path = signal.path, path.parent == adapterPath, signal.body.count >= 2,
                let connected = signal.body[1].propertiesValue?["Connected"]?.boolValue
            else { return }
            continuation.yield(connected ? .deviceConnected(path) : .deviceDisconnected(path))
        case "InterfacesRemoved":
            guard signal.body.count == 2, let path = signal.body[0].objectPathValue, path.parent == adapterPath,
                signal.body[1].stringArrayValue?.contains(BlueZInterface.device) == true
            else { return }
            continuation.yield(.deviceDisconnected(path))
        default:
            break
        }
    }

    private func lose(_ loss: GattHostLoss) async {
        guard applicationRegistered || registration != nil else { return }
        await dropRegistrations()
        continuation?.yield(.lost(loss))
    }

    /// Registers what is missing, until both are registered, BlueZ or the adapter is
    /// absent (the next event resumes), or the host stops.
    private func reconcile() async {
        guard running, !reconciling else { return }
        reconciling = true
        defer { reconciling = false }
        var attempts = 0
        while running, !isRegistered {
            do {
                try await register()
                if running { continuation?.yield(.registered) }
                return
            } catch let error as BlueZError where Self.isAbsence(error) {
                return
            } catch {
                attempts += 1
                // bluetoothd answers before it has set the adapter up; a few retries cover
                // that, an error that persists waits for the next event.
                if attempts >= 10 { return }
                try? await Task.sleep(for: retryInterval)
            }
        }
    }

    private func register() async throws {
        let adapter = try await client.adapter(named: adapterName)
        try await adapter.powerOn()
        guard running else { return }
        self.adapter = adapter
        if !applicationRegistered {
            try await adapter.register(application)
            applicationRegistered = true
        }
        if registration == nil, running {
            let registration = try await adapter.register(advertisement)
            self.registration = registration
            // One watch at a time: the previous registration's ended with it.
            releaseWatch?.cancel()
            releaseWatch = Task { [weak self] in
                for await _ in registration.releases { await self?.released(registration) }
            }
        }
    }

    /// BlueZ dropped the advertisement by itself (`Release`): register it again.
    private func released(_ released: AdvertisementRegistration) async {
        guard running, registration === released else { return }
        try? await released.unregister()
        registration = nil
        await reconcile()
    }

    /// Unregisters (bounded) and stops exporting both; BlueZ may already have forgotten them.
    private func dropRegistrations() async {
        let (registration, adapter, application) = (self.registration, self.adapter, self.application)
        let hadApplication = applicationRegistered
        self.registration = nil
        applicationRegistered = false
        if let registration {
            _ = try? await withTimeout(callTimeout, "UnregisterAdvertisement") { try await registration.unregister() }
        }
        if hadApplication, let adapter {
            _ = try? await withTimeout(callTimeout, "UnregisterApplication") {
                try await adapter.unregister(application)
            }
        }
    }

    /// Errors that mean "BlueZ or the adapter is not there (yet)".
    static func isAbsence(_ error: BlueZError) -> Bool {
        switch error {
        case .serviceUnavailable, .adapterNotFound: return true
        case .dbus(let e): return e.name == "org.freedesktop.DBus.Error.UnknownObject"
        default: return false
        }
    }
}

import DBus
import HolderRuntime
import Wallet

/// `mdoc-holder serve`: the holder on the system bus as `org.mdocholder`, object
/// /org/mdocholder with `org.mdocholder.Holder1` and `org.mdocholder.AgentManager1` (plus
/// Properties, Introspectable and ObjectManager), and in kiosk mode a session always armed.
public final class HolderService: Sendable {
    public static let busName = "org.mdocholder"
    public static let objectPath: DBusObjectPath = "/org/mdocholder"

    public let configuration: ServiceConfiguration
    private let environment: ServiceEnvironment
    private let sessions: SessionManager
    private let tree: DBusObjectTree
    private let bluetoothWatch: Task<Void, Never>
    private let kiosk: Task<Void, Never>?

    private init(
        configuration: ServiceConfiguration, environment: ServiceEnvironment, sessions: SessionManager,
        tree: DBusObjectTree, bluetoothWatch: Task<Void, Never>, kiosk: Task<Void, Never>?
    ) {
        self.configuration = configuration
        self.environment = environment
        self.sessions = sessions
        self.tree = tree
        self.bluetoothWatch = bluetoothWatch
        self.kiosk = kiosk
    }

    /// Opens the store and the bus, exports the objects, takes the bus name and (kiosk)
    /// arms the first session.
    public static func start(_ configuration: ServiceConfiguration, log: ServiceLog) async throws(HolderServiceError)
        -> HolderService
    {
        let store: CredentialStore
        do {
            store = try CredentialStore(path: configuration.storePath, secureAreas: configuration.secureAreas)
        } catch {
            throw .startup("cannot open the credential store: \(error)")
        }
        do {
            try store.checkKeysUsable()
        } catch {
            // The service still lists and keeps history; presentations end with status 10.
            log.warning("device keys cannot be used: \(error)")
        }
        let connection: DBusConnection
        do {
            if let address = configuration.busAddress {
                connection = try await DBusConnection.connect(address: address)
            } else {
                connection = try await DBusConnection.system()
            }
        } catch {
            throw .startup(
                "cannot connect to the system bus (\(error)): is dbus running? DBUS_SYSTEM_BUS_ADDRESS selects another bus"
            )
        }
        let agents = AgentRegistry(connection: connection, log: log)
        let holder = Holder(settings: configuration.holderSettings, store: store) { log.holderLine($0) }
        let environment = ServiceEnvironment(
            connection: connection, store: store, configuration: configuration, holder: holder, agents: agents,
            signals: HolderSignals(connection: connection), log: log,
            statusRefresher: StatusRefresher(holder: holder, configuration: configuration, log: log))
        let sessions = SessionManager(environment: environment)
        let tree = DBusObjectTree(
            root: objectPath,
            rootInterfaces: [
                HolderInterface(sessions: sessions, store: store, configuration: configuration),
                AgentManagerInterface(agents: agents, configuration: configuration),
            ])
        let bluetoothChanges: AsyncStream<DBusMessage>
        do {
            try await tree.export(on: connection)
            bluetoothChanges = try await connection.subscribe(.nameOwnerChanged("org.bluez"))
        } catch {
            await connection.close()
            throw .startup("cannot set up the D-Bus objects: \(error)")
        }
        try await takeName(on: connection)
        await environment.statusRefresher?.startTimer()
        let bluetoothWatch = Task { await sessions.followBluetooth(bluetoothChanges) }
        var kiosk: Task<Void, Never>?
        if let kioskConfiguration = configuration.kiosk {
            let loop = KioskLoop(
                sessions: sessions, adapter: configuration.defaultAdapter, mode: configuration.settings.proximity.modes,
                publisher: QRPublisher(configuration: kioskConfiguration, log: log), log: log)
            kiosk = Task { await loop.run() }
        }
        log.notice(
            "serving \(busName) at \(objectPath.rawValue) (consent: \(describe(configuration.consent)); kiosk: \(configuration.kiosk == nil ? "no" : "on \(configuration.defaultAdapter)"))"
        )
        return HolderService(
            configuration: configuration, environment: environment, sessions: sessions, tree: tree,
            bluetoothWatch: bluetoothWatch, kiosk: kiosk)
    }

    private static func describe(_ consent: ServiceConsent) -> String {
        switch consent {
        case .agent(let timeout): "D-Bus agent, \(timeout) timeout"
        case .policy(_, let path): "policy \(path)"
        }
    }

    private static func takeName(on connection: DBusConnection) async throws(HolderServiceError) {
        let reply: DBusRequestNameReply
        do {
            reply = try await connection.requestName(busName, flags: .doNotQueue)
        } catch let error as DBusError where error.name == DBusError.accessDeniedName {
            await connection.close()
            throw .startup(
                "the bus policy does not let this user own \(busName): install dbus/org.mdocholder.conf in /usr/share/dbus-1/system.d and run as the user it names (\(error.message))"
            )
        } catch {
            await connection.close()
            throw .startup("cannot take the bus name \(busName): \(error)")
        }
        switch reply {
        case .primaryOwner, .alreadyOwner:
            return
        case .exists, .inQueue:
            await connection.close()
            throw .startup(
                "\(busName) is already owned on this bus: another `mdoc-holder serve` runs (systemctl status mdoc-holder)"
            )
        }
    }

    /// Returns when the bus connection is lost (the service cannot go on) or `stop()` ran.
    public func waitUntilDisconnected() async {
        await bluetoothWatch.value
    }

    /// Ends every session, releases the agent and the name, closes the connection.
    public func stop() async {
        environment.log.notice("stopping")
        kiosk?.cancel()
        await environment.statusRefresher?.stopTimer()
        await sessions.cancelAll()
        await kiosk?.value
        await environment.agents.releaseAll()
        await environment.signals.finish()
        _ = try? await environment.connection.releaseName(Self.busName)
        await tree.unexport(from: environment.connection)
        await environment.connection.flush()
        await environment.connection.close()
        await bluetoothWatch.value
    }
}

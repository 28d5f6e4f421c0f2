import DBus

/// The consent agent registered with `org.mdocholder.AgentManager1`: one at a time, the
/// newest registration wins (the previous agent gets `Release`), and an agent whose
/// connection leaves the bus is dropped (NameOwnerChanged on its unique name).
public actor AgentRegistry {
    /// An agent: the unique bus name of its connection and its object path.
    public struct Agent: Sendable, Hashable, CustomStringConvertible {
        public let owner: String
        public let path: DBusObjectPath
        public var description: String { "\(owner)\(path.rawValue)" }
    }

    private let connection: DBusConnection
    private let log: ServiceLog
    /// The agent asked for consent, if any.
    public private(set) var current: Agent?
    private var watch: Task<Void, Never>?
    /// Counts registrations, so a departure seen late never drops a newer registration.
    private var generation = 0

    public init(connection: DBusConnection, log: ServiceLog) {
        self.connection = connection
        self.log = log
    }

    /// Registers the agent at `path` of the connection `owner` (the caller's unique name).
    public func register(owner: String, path: DBusObjectPath) async throws(HolderServiceError) {
        let agent = Agent(owner: owner, path: path)
        if current == agent { return }
        // Follow the caller's connection before taking it, so a departure in between is seen.
        let departures: AsyncStream<DBusMessage>
        do {
            departures = try await connection.subscribe(.nameOwnerChanged(owner))
            guard try await connection.nameOwner(owner) != nil else {
                throw HolderServiceError.notFound("the agent's connection \(owner) has left the bus")
            }
        } catch let error as HolderServiceError {
            throw error
        } catch {
            throw .failed("could not follow the agent's connection: \(error)")
        }
        if let previous = current { release(previous, reason: "another agent registered") }
        current = agent
        generation += 1
        let registration = generation
        watch = Task { [weak self] in
            for await message in departures {
                if message.body.count == 3, message.body[2].stringValue == "" {
                    await self?.departed(registration)
                    return
                }
            }
        }
        log.notice("consent agent \(agent) registered")
    }

    /// Unregisters the agent at `path` of `owner`; only the registered agent may be removed.
    public func unregister(owner: String, path: DBusObjectPath) throws(HolderServiceError) {
        let agent = Agent(owner: owner, path: path)
        guard current == agent else {
            throw .notFound("\(path.rawValue) of \(owner) is not the registered agent: nothing to unregister")
        }
        drop(reason: "unregistered")
    }

    /// Sends `Release` to the registered agent and forgets it (the service stops).
    public func releaseAll() async {
        if let agent = current {
            log.notice("consent agent \(agent) released: the service stops")
            _ = try? await connection.send(Self.releaseMessage(agent))
        }
        current = nil
        watch?.cancel()
        watch = nil
    }

    private func departed(_ registration: Int) {
        guard registration == generation, current != nil else { return }
        drop(reason: "its connection left the bus")
    }

    private func drop(reason: String) {
        if let agent = current { log.notice("consent agent \(agent) dropped: \(reason)") }
        current = nil
        watch?.cancel()
        watch = nil
    }

    private func release(_ agent: Agent, reason: String) {
        log.notice("consent agent \(agent) released: \(reason)")
        watch?.cancel()
        watch = nil
        let (connection, message) = (connection, Self.releaseMessage(agent))
        Task { try? await connection.send(message) }
    }

    private static func releaseMessage(_ agent: Agent) -> DBusMessage {
        var message = DBusMessage.methodCall(
            destination: agent.owner, path: agent.path, interface: AgentConsentWire.interface, member: "Release")
        message.noReplyExpected = true
        return message
    }
}

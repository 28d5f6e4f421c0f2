import DBus

/// One method call to the registered consent agent for a session (`RequestConsent`,
/// `RequestTransactionCode`), raced against the agent's connection leaving the bus, and the
/// `Cancel(session)` that withdraws it.
struct AgentCall: Sendable {
    let connection: DBusConnection
    let agent: AgentRegistry.Agent
    let session: UInt64
    let timeout: Duration

    /// How the call ended.
    enum Outcome: Sendable {
        case answered([DBusValue])
        /// An error reply, or no reply within the timeout (``DBusError/isTimeout``).
        case failed(DBusError)
        /// The agent's connection left the bus first.
        case departed
        /// The asking task was cancelled (the session ended).
        case cancelled
    }

    /// Calls `member` of `org.mdocholder.ConsentAgent1` on the agent with `body`.
    func call(_ member: String, _ body: [DBusValue]) async -> Outcome {
        let departures: AsyncStream<DBusMessage>
        do {
            departures = try await connection.subscribe(.nameOwnerChanged(agent.owner))
        } catch {
            return Task.isCancelled ? .cancelled : .failed(error as? DBusError ?? .failed("subscription failed"))
        }
        let call = DBusMessage.methodCall(
            destination: agent.owner, path: agent.path, interface: AgentConsentWire.interface, member: member,
            body: body)
        let (connection, timeout) = (connection, timeout)
        return await withTaskGroup(of: Outcome.self) { group in
            group.addTask {
                do {
                    return .answered(try await connection.call(call, timeout: timeout).body)
                } catch let error as DBusError {
                    return .failed(error)
                } catch {
                    return .cancelled
                }
            }
            group.addTask {
                for await message in departures {
                    if message.body.count == 3, message.body[2].stringValue == "" { return .departed }
                }
                return .cancelled
            }
            let first = await group.next() ?? .cancelled
            group.cancelAll()
            return Task.isCancelled ? .cancelled : first
        }
    }

    /// `Cancel(session)` to the agent, from a task of its own (the caller may be cancelled).
    func cancel() {
        var message = DBusMessage.methodCall(
            destination: agent.owner, path: agent.path, interface: AgentConsentWire.interface, member: "Cancel",
            body: [.uint64(session)])
        message.noReplyExpected = true
        let connection = connection
        Task.detached { try? await connection.send(message) }
    }
}

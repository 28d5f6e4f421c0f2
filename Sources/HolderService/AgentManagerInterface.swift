import DBus

/// `org.mdocholder.AgentManager1` at /org/mdocholder: consent agents register here.
struct AgentManagerInterface: DBusInterface {
    let agents: AgentRegistry
    let configuration: ServiceConfiguration

    var name: String { "org.mdocholder.AgentManager1" }

    var introspection: DBusInterfaceDescription {
        DBusInterfaceDescription(methods: [
            .init("RegisterAgent", inputs: [.init("agent", "o")]),
            .init("UnregisterAgent", inputs: [.init("agent", "o")]),
        ])
    }

    func properties() -> [String: DBusValue] { [:] }

    func call(_ call: DBusMessage, on connection: isolated DBusConnection) -> DBusMethodResponse {
        guard call.member == "RegisterAgent" || call.member == "UnregisterAgent" else {
            return .error(.unknownMethod("no method \(call.member ?? "") on \(name)"))
        }
        guard call.signature == "o", let path = call.body[0].objectPathValue, let owner = call.sender else {
            return .error(HolderServiceError.invalidArguments("\(call.member ?? "") takes (o)").dbusError)
        }
        if case .policy(_, let file) = configuration.consent {
            return .error(
                HolderServiceError.notSupported(
                    "this service answers consent from its policy file \(file) (serve --consent policy:FILE); agents are not asked: run it with --consent agent to use one"
                ).dbusError)
        }
        let agents = agents
        let register = call.member == "RegisterAgent"
        return .deferred {
            do throws(HolderServiceError) {
                if register {
                    try await agents.register(owner: owner, path: path)
                } else {
                    try await agents.unregister(owner: owner, path: path)
                }
                return []
            } catch {
                throw error.dbusError
            }
        }
    }
}

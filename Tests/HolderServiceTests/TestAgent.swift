import DBus
import Synchronization

/// A consent agent on a connection of its own: answers RequestConsent as told and records
/// what it was sent.
final class TestAgent: Sendable {
    enum Behaviour: Sendable {
        /// Replies with these (doctype, namespace, identifier).
        case approve([(String, String, String)])
        /// Replies with an error.
        case fail
        /// Never replies (within the test).
        case hang
        /// Closes its connection while the request is pending.
        case disconnect
    }

    /// How it answers RequestTransactionCode and OpenAuthorization (which takes any reply).
    enum CodeBehaviour: Sendable {
        /// Replies with these values (one string is a code).
        case reply([DBusValue])
        /// Replies with an error (the user declined).
        case fail
        /// Never replies (within the test).
        case hang
    }

    static let path: DBusObjectPath = "/test/agent"

    private final class Recorder: Sendable {
        let state = Mutex<
            (
                requests: [(UInt64, [String: DBusValue])], codeRequests: [(UInt64, [String: DBusValue])],
                cancels: [UInt64], releases: Int, opened: [(UInt64, String)]
            )
        >(([], [], [], 0, []))
    }

    let connection: DBusConnection
    private let recorder: Recorder

    var requests: [(UInt64, [String: DBusValue])] { recorder.state.withLock { $0.requests } }
    var codeRequests: [(UInt64, [String: DBusValue])] { recorder.state.withLock { $0.codeRequests } }
    var cancels: [UInt64] { recorder.state.withLock { $0.cancels } }
    var releases: Int { recorder.state.withLock { $0.releases } }
    var opened: [(UInt64, String)] { recorder.state.withLock { $0.opened } }

    init(address: String, behaviour: Behaviour, code: CodeBehaviour = .fail) async throws {
        let recorder = Recorder()
        self.recorder = recorder
        connection = try await DBusConnection.connect(address: address)
        let state = recorder
        let object = DBusClosureObject { call, connection in
            switch call.member {
            case "RequestConsent":
                guard case .uint64(let session) = call.body[0], let request = call.body[1].propertiesValue else {
                    return .error(.invalidArgs("bad request"))
                }
                state.state.withLock { $0.requests.append((session, request)) }
                switch behaviour {
                case .approve(let items):
                    return .reply([
                        .array(
                            .structure([.string, .string, .string]),
                            items.map { .structure([.string($0.0), .string($0.1), .string($0.2)]) })
                    ])
                case .fail:
                    return .error(DBusError(name: "org.example.Error.Rejected", message: "user closed the dialog"))
                case .hang:
                    return .deferred {
                        try await Task.sleep(for: .seconds(20))
                        return [.array(.structure([.string, .string, .string]), [])]
                    }
                case .disconnect:
                    connection.close()
                    return .error(.disconnected())
                }
            case "RequestTransactionCode", "OpenAuthorization":
                guard case .uint64(let session) = call.body[0] else { return .error(.invalidArgs("bad request")) }
                if let request = call.body[1].propertiesValue {
                    state.state.withLock { $0.codeRequests.append((session, request)) }
                } else if let url = call.body[1].stringValue {
                    state.state.withLock { $0.opened.append((session, url)) }
                } else {
                    return .error(.invalidArgs("bad request"))
                }
                switch code {
                case .reply(let values):
                    return .reply(values)
                case .fail:
                    return .error(DBusError(name: "org.example.Error.Declined", message: "user closed the dialog"))
                case .hang:
                    return .deferred {
                        try await Task.sleep(for: .seconds(20))
                        return [.string("")]
                    }
                }
            case "Cancel":
                if case .uint64(let session) = call.body.first { state.state.withLock { $0.cancels.append(session) } }
                return .reply([])
            case "Release":
                state.state.withLock { $0.releases += 1 }
                return .reply([])
            default:
                return .error(.unknownMethod("no such method"))
            }
        }
        try await connection.export(object, at: Self.path)
    }

    var uniqueName: String {
        get async { await connection.uniqueName }
    }

    /// Waits (up to 10 s) until `condition` holds.
    func wait(_ condition: @escaping @Sendable (TestAgent) -> Bool) async -> Bool {
        for _ in 0..<1000 {
            if condition(self) { return true }
            try? await Task.sleep(for: .milliseconds(10))
        }
        return false
    }
}

/// One side's GATT link of a session, in the role it plays: what carries out a
/// ``BLESession``'s outputs and where its events come from. The holder and the reader use
/// the same two roles (``MdocGattServer``, ``MdocGattClient``).
public enum GattLink: Sendable {
    /// This side serves the mdoc service (holder: peripheral-server mode; reader:
    /// central-client mode).
    case server(any MdocGattServer)
    /// This side is the GATT client (holder: central-client mode; reader: peripheral-server
    /// mode).
    case client(any MdocGattClient)

    /// Sends one chunk of our message: a Server2Client notification (server) or a
    /// Client2Server write without response (client); returns once it is out.
    public func sendChunk(_ chunk: [UInt8]) async throws {
        switch self {
        case .server(let server): try await server.notify(.server2Client, chunk)
        case .client(let client): try await client.write(.client2Server, chunk)
        }
    }

    /// Sends a State value: notified (server) or written without response (client).
    public func sendState(_ state: BLEStateValue) async throws {
        switch self {
        case .server(let server): try await server.notify(.state, state.value)
        case .client(let client): try await client.write(.state, state.value)
        }
    }

    /// Unregisters the service (server) or disconnects (client).
    public func release() async {
        switch self {
        case .server(let server): await server.stop()
        case .client(let client): await client.disconnect()
        }
    }
}

extension BLESessionEvent {
    /// The session event of a GATT server event; nil for events the session does not take
    /// (subscriptions of State, writes to Server2Client).
    public init?(_ event: MdocGattEvent) {
        switch event {
        case .mtu(let mtu): self = .mtuChanged(mtu)
        case .subscribed(.server2Client): self = .subscribed
        case .unsubscribed(.server2Client): self = .unsubscribed
        case .subscribed, .unsubscribed: return nil
        case .written(.state, let value): self = .stateReceived(value)
        case .written(.client2Server, let chunk): self = .chunkReceived(chunk)
        case .written(.server2Client, _): return nil
        case .disconnected: self = .disconnected
        }
    }

    /// The session event of a GATT client event; nil for notifications the session does
    /// not take (of Client2Server).
    public init?(_ event: MdocGattClientEvent) {
        switch event {
        case .notified(.state, let value): self = .stateReceived(value)
        case .notified(.server2Client, let chunk): self = .chunkReceived(chunk)
        case .notified(.client2Server, _): return nil
        case .disconnected: self = .disconnected
        }
    }
}

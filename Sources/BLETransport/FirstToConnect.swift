/// The first of several ways to reach the peer that succeeds wins; the others are abandoned.
/// A holder offering both BLE modes, or a reader offering GATT and L2CAP on its service,
/// does not know which the peer will use: each way waits in a task of its own, the first to
/// bring a connection is kept, the rest are cancelled and told to let go (a listener closed,
/// a scan stopped), and losers that connect anyway are handed to `discard`.
public enum FirstToConnect {
    /// One way to reach the peer.
    public struct Contender<Connection: Sendable>: Sendable {
        /// Waits for the peer this way; nil when it cannot come this way (then the others
        /// still may).
        public var connect: @Sendable () async -> Connection?
        /// Lets go of what waits (closes a listener, stops a scan) once another way won or
        /// time ran out.
        public var abandon: @Sendable () async -> Void

        public init(
            connect: @escaping @Sendable () async -> Connection?, abandon: @escaping @Sendable () async -> Void = {}
        ) {
            self.connect = connect
            self.abandon = abandon
        }
    }

    /// The index and connection of the first contender to connect; nil when none did within
    /// `timeout` (nil: no bound) or all gave up.
    public static func race<Connection: Sendable>(
        _ contenders: [Contender<Connection>], timeout: Duration?,
        discard: @escaping @Sendable (Connection) async -> Void = { _ in }
    ) async -> (index: Int, connection: Connection)? {
        let (results, continuation) = AsyncStream<(Int, Connection?)>.makeStream()
        var tasks: [Task<Void, Never>] = []
        for (index, contender) in contenders.enumerated() {
            tasks.append(
                Task {
                    let connection = await contender.connect()
                    // The race is over: a connection that comes now is let go here.
                    if case .terminated = continuation.yield((index, connection)), let connection {
                        await discard(connection)
                    }
                })
        }
        let timer = timeout.map { timeout in
            Task {
                try? await Task.sleep(for: timeout)
                continuation.finish()
            }
        }
        var iterator = results.makeAsyncIterator()
        var winner: (index: Int, connection: Connection)?
        var givenUp = 0
        while givenUp < contenders.count, let (index, connection) = await iterator.next() {
            if let connection {
                winner = (index, connection)
                break
            }
            givenUp += 1
        }
        continuation.finish()
        timer?.cancel()
        // Connections that arrived together with the winner's are let go too.
        while let (_, connection) = await iterator.next() {
            if let connection { await discard(connection) }
        }
        for (index, task) in tasks.enumerated() where index != winner?.index { task.cancel() }
        for (index, contender) in contenders.enumerated() where index != winner?.index {
            await contender.abandon()
        }
        return winner
    }
}

import BLEBlueZ
import BlueZ

/// What `present` needs before it can show an engagement besides its store: the BlueZ roles
/// of the adapter, started before the policy, the store and its key-encryption key are read,
/// on another core meanwhile (they share nothing with them). OpenSSL is made ready earlier
/// still, before the command line is parsed (``ProcessEntry``, `EarlyInitialisation`).
enum PresentStart {
    /// The holder's BlueZ roles on `adapter`, with the warnings about bluetoothd's
    /// configuration and L2CAP kept for the caller to print once the store has been checked
    /// (a store error is still the first thing said). `log` hears how readers subscribe.
    static func bluetooth(
        adapter: String, l2cap: Bool, log: @escaping @Sendable (String) -> Void
    ) async throws -> (roles: BlueZRoles, warnings: [String]) {
        let client = try await BlueZClient.connect()
        var warnings: [String] = []
        let roles = BlueZRoles.holder(
            client: client, adapter: adapter, l2cap: l2cap, warn: { warnings.append($0) }, log: log)
        return (roles, warnings)
    }
}

import BLEBlueZ
import BlueZ
import MdocCrypto

/// What `present` needs before it can show an engagement besides its store: the BlueZ roles
/// of the adapter, and OpenSSL ready to make the engagement's key. Both are started before
/// the policy, the store and its key-encryption key are read, and run on another core
/// meanwhile (they share nothing with them).
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

    /// OpenSSL's first use done ahead (its configuration file, the default provider, the
    /// P-256 key generation the engagement needs): a throwaway key. A failure is not reported
    /// here; the engagement's own key generation reports it.
    static func warmUpCrypto() {
        _ = try? PrivateKey.generate(.p256)
    }
}

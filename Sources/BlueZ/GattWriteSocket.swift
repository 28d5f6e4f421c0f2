import DBus

/// The socket of a remote characteristic's `AcquireWrite` (client side): each packet written
/// is one Write Command on the link, without a D-Bus call per value. bluetoothd closes it when
/// the link drops; a send then throws.
public final class GattWriteSocket: Sendable {
    /// The ATT MTU BlueZ reported; a packet carries at most ``maximumValueSize`` bytes.
    public let mtu: Int
    private let socket: GattSocket

    init(_ descriptor: DBusFileDescriptor, mtu: Int) throws {
        self.mtu = mtu
        socket = try GattSocket.adopting(descriptor, mtu: mtu)
        // Nothing comes back on a write socket but the hang-up, which closes ours.
        socket.start(onPacket: { _ in }, onClose: {})
    }

    deinit { socket.close() }

    /// The largest value one packet may carry: the ATT MTU less the Write Command's opcode
    /// and handle (bluetoothd reads at most that much per packet).
    public var maximumValueSize: Int { max(mtu - 3, 0) }

    /// Sends one value; returns once the kernel has taken it.
    public func send(_ value: [UInt8]) async throws { try await socket.send(value) }

    /// Returns once bluetoothd has read every value sent (then they are queued for the link
    /// in order, ahead of anything written by a later D-Bus call), or after `limit`.
    public func waitUntilRead(limit: Duration = .seconds(5)) async { await socket.waitUntilRead(limit: limit) }

    /// Closes our end.
    public func close() { socket.close() }
}

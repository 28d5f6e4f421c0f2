internal import CBluetooth

/// A listening LE L2CAP connection-oriented channel on a dynamic PSM: the holder's end in
/// mdoc peripheral-server mode, announced in the PSM characteristic and the engagement.
public final class L2CAPListener: Sendable {
    /// The PSM the kernel allocated (in the LE dynamic range).
    public let psm: UInt16
    private let socket: L2CAPSocket

    /// Listens on `adapter` (any local adapter by default) on a PSM the kernel picks.
    ///
    /// - Throws: ``L2CAPError/bluetoothUnavailable`` on a kernel without Bluetooth sockets.
    public init(adapter: BluetoothDeviceAddress = .any) throws(L2CAPError) {
        let socket = try L2CAPSocket.make()
        try socket.bind(adapter, psm: 0)
        // After bind (the kernel takes it only on an LE-bound socket); accepted channels inherit it.
        socket.setOption(BT_RCVMTU, L2CAPChannel.preferredMTU)
        try socket.listen(backlog: 1)
        psm = try socket.boundPSM()
        self.socket = socket
    }

    /// Waits for a reader to connect.
    ///
    /// - Throws: ``L2CAPError/closed`` after ``close()``.
    public func accept() async throws(L2CAPError) -> L2CAPChannel {
        L2CAPChannel(socket: try await socket.accept())
    }

    /// Stops listening; a waiting ``accept()`` throws ``L2CAPError/closed``.
    public func close() { socket.shutdown() }
}

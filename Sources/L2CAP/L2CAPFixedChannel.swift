internal import CBluetooth

/// A connected LE L2CAP fixed channel: whole PDUs out and in, no credits and no
/// segmentation of ours. The kernel lets user space open one fixed channel only, the
/// Attribute Protocol's (CID 4), which is what bluetoothd's own ATT bearer is: with it a
/// program speaks ATT without bluetoothd (the BLE benchmark's raw ATT peer). bluetoothd,
/// when it runs, already listens on it.
public final class L2CAPFixedChannel: Sendable {
    /// The fixed channel identifier of the Attribute Protocol (Core Vol 3 Part A 2.1).
    public static let attributeProtocol: UInt16 = 0x0004
    /// The kernel's MTU of a fixed channel when it reports none (the L2CAP default).
    static let defaultMTU = 672

    /// The peer, when the kernel reports it.
    public let peer: BluetoothDeviceAddress?
    /// The largest PDU the kernel takes in.
    public let receiveMTU: Int
    private let socket: L2CAPSocket

    init(socket: L2CAPSocket) {
        self.socket = socket
        peer = socket.peerAddress()
        receiveMTU = socket.mtu(BT_RCVMTU, fallback: Self.defaultMTU)
    }

    /// Connects from the local adapter at `local` to the fixed channel `cid` of `peer` (the
    /// kernel makes the LE connection when there is none: `peer` must advertise, connectable).
    ///
    /// - Throws: ``L2CAPError/bluetoothUnavailable`` on a kernel without Bluetooth sockets,
    ///   ``L2CAPError/closed`` when the task was cancelled, or the failing system call
    ///   (`EINVAL` for a CID other than ATT's).
    public static func connect(
        from local: BluetoothDeviceAddress, to peer: BluetoothDeviceAddress, cid: UInt16 = attributeProtocol
    ) async throws(L2CAPError) -> L2CAPFixedChannel {
        let socket = try L2CAPSocket.make()
        try socket.bind(local, psm: 0, cid: cid)
        // The kernel's LE connection attempt can wait long for the peer's advertising: a
        // cancelled task ends it.
        let result: Result<Void, L2CAPError> = await withTaskCancellationHandler {
            do throws(L2CAPError) {
                try await socket.connect(peer, psm: 0, cid: cid)
                return .success(())
            } catch {
                return .failure(error)
            }
        } onCancel: {
            socket.shutdown()
        }
        try result.get()
        return L2CAPFixedChannel(socket: socket)
    }

    /// Sends one PDU as one packet; returns once the kernel has taken it (it blocks while the
    /// link's buffers are full). An empty PDU sends nothing (ATT has none).
    public func send(_ pdu: [UInt8]) async throws(L2CAPError) {
        try await socket.send(packet: pdu)
    }

    /// The next PDU.
    ///
    /// - Throws: ``L2CAPError/closed`` when the link went down or ``close()`` ended it.
    public func receive() async throws(L2CAPError) -> [UInt8] {
        guard let pdu = try await socket.receive(maximum: receiveMTU) else { throw .closed }
        return pdu
    }

    /// Ends the channel (the kernel drops the LE link when nothing else uses it); a waiting
    /// ``receive()`` or ``connect(from:to:cid:)`` returns.
    public func close() { socket.shutdown() }
}

/// A listening LE L2CAP fixed channel (ATT's, CID 4) on one adapter: each LE connection
/// made to the adapter is accepted as an ``L2CAPFixedChannel``.
public final class L2CAPFixedChannelListener: Sendable {
    private let socket: L2CAPSocket

    /// Listens on the fixed channel `cid` of the adapter at `adapter`.
    ///
    /// - Throws: ``L2CAPError/bluetoothUnavailable`` on a kernel without Bluetooth sockets,
    ///   `EADDRINUSE` when bluetoothd (or another program) listens there already.
    public init(adapter: BluetoothDeviceAddress, cid: UInt16 = L2CAPFixedChannel.attributeProtocol)
        throws(L2CAPError)
    {
        let socket = try L2CAPSocket.make()
        try socket.bind(adapter, psm: 0, cid: cid)
        try socket.listen(backlog: 1)
        self.socket = socket
    }

    /// Waits for a peer to connect.
    ///
    /// - Throws: ``L2CAPError/closed`` after ``close()``.
    public func accept() async throws(L2CAPError) -> L2CAPFixedChannel {
        L2CAPFixedChannel(socket: try await socket.accept())
    }

    /// Stops listening; a waiting ``accept()`` throws ``L2CAPError/closed``.
    public func close() { socket.shutdown() }
}

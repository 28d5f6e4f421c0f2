internal import CBluetooth

/// A connected LE L2CAP connection-oriented channel: SDUs out and in, in order, reliable.
/// The 18013-5 message framing on top of it is ``BLETransport``'s (`L2CAPFraming`).
public final class L2CAPChannel: Sendable {
    /// The receive MTU we ask for (the kernel's default is 672). Not the LE maximum of 65535:
    /// an SDU is queued in the sender's socket buffer as one K-frame per MPS, and a 65535-byte
    /// SDU can need more buffer than the socket has, which stalls the sender.
    static let preferredMTU: UInt16 = 4096
    /// The largest SDU we send, even to a peer whose receive MTU is larger (see above).
    static let largestSentSDU = 4096
    /// The receive buffer: the largest LE SDU (no receive MTU is larger), whatever MTU was agreed.
    static let receiveBuffer = Int(UInt16.max)
    /// The LE minimum (Core Vol 3 Part A 4.22).
    static let minimumMTU = 23

    /// The peer, when the kernel reports it.
    public let peer: BluetoothDeviceAddress?
    /// The largest SDU the peer takes.
    public let sendMTU: Int
    /// The largest SDU we take.
    public let receiveMTU: Int
    private let socket: L2CAPSocket

    init(socket: L2CAPSocket) {
        self.socket = socket
        peer = socket.peerAddress()
        sendMTU = socket.mtu(BT_SNDMTU, fallback: Self.minimumMTU)
        receiveMTU = socket.mtu(BT_RCVMTU, fallback: Int(Self.preferredMTU))
    }

    /// Connects to `psm` on `address`.
    ///
    /// - Throws: ``L2CAPError/bluetoothUnavailable`` on a kernel without Bluetooth sockets,
    ///   ``L2CAPError/invalidPSM(_:)``, or the failing system call.
    public static func connect(to address: BluetoothDeviceAddress, psm: UInt16) async throws(L2CAPError)
        -> L2CAPChannel
    {
        guard (0x0080...0x00FF).contains(psm) else { throw .invalidPSM(psm) }
        let socket = try L2CAPSocket.make()
        try socket.bind(.any, psm: 0)
        // After bind: the kernel takes BT_RCVMTU only on a socket bound to an LE address.
        socket.setOption(BT_RCVMTU, preferredMTU)
        try await socket.connect(address, psm: psm)
        return L2CAPChannel(socket: socket)
    }

    /// Sends `bytes` as SDUs of at most ``sendMTU`` (and ``largestSentSDU``), in order;
    /// returns once all are taken.
    public func send(_ bytes: [UInt8]) async throws(L2CAPError) {
        try await socket.send(bytes, sduSize: min(sendMTU, Self.largestSentSDU))
    }

    /// The next SDU.
    ///
    /// - Throws: ``L2CAPError/closed`` when the peer or ``close()`` ended the channel.
    public func receive() async throws(L2CAPError) -> [UInt8] {
        guard let sdu = try await socket.receive(maximum: Self.receiveBuffer) else {
            throw .closed
        }
        return sdu
    }

    /// Ends the channel; a waiting ``receive()`` throws ``L2CAPError/closed``.
    public func close() { socket.shutdown() }
}

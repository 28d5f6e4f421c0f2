internal import CBluetooth
import Dispatch
import Glibc
import Synchronization

/// One L2CAP socket (`AF_BLUETOOTH`, `SOCK_SEQPACKET`, `BTPROTO_L2CAP`): owns the file
/// descriptor and closes it when it goes away. Blocking calls run on a queue of their own,
/// never on Swift's cooperative thread pool; ``shutdown()`` wakes one that waits.
final class L2CAPSocket: Sendable {
    /// Blocking socket calls wait here, off the cooperative pool.
    private static let queue = DispatchQueue(label: "mdoc-holder.L2CAP", attributes: .concurrent)

    let fd: Int32
    private let isShutDown = Mutex(false)

    init(fd: Int32) { self.fd = fd }

    /// A new LE L2CAP socket.
    static func make() throws(L2CAPError) -> L2CAPSocket {
        let fd = socket(AF_BLUETOOTH, Int32(SOCK_SEQPACKET.rawValue), BTPROTO_L2CAP)
        guard fd >= 0 else {
            let code = errno
            if code == EAFNOSUPPORT || code == EPROTONOSUPPORT || code == ESOCKTNOSUPPORT {
                throw .bluetoothUnavailable
            }
            throw .system(call: "socket(AF_BLUETOOTH)", errno: code, message: String(cString: strerror(code)))
        }
        return L2CAPSocket(fd: fd)
    }

    deinit { close(fd) }

    var shutDown: Bool { isShutDown.withLock { $0 } }

    /// Ends both directions; a blocked accept, read or write returns.
    func shutdown() {
        let first = isShutDown.withLock { done in
            defer { done = true }
            return !done
        }
        if first { _ = Glibc.shutdown(fd, Int32(SHUT_RDWR)) }
    }

    /// `sockaddr_l2` for `address` and `psm`, or a fixed channel's `cid` (then `psm` is 0).
    static func socketAddress(_ address: BluetoothDeviceAddress, psm: UInt16, cid: UInt16 = 0) -> sockaddr_l2 {
        var a = sockaddr_l2()
        a.l2_family = sa_family_t(AF_BLUETOOTH)
        a.l2_psm = psm.littleEndian
        a.l2_cid = cid.littleEndian
        // bdaddr_t holds the address least significant byte first.
        withUnsafeMutableBytes(of: &a.l2_bdaddr) { $0.copyBytes(from: address.bytes.reversed()) }
        a.l2_bdaddr_type = UInt8(address.kind == .lePublic ? BDADDR_LE_PUBLIC : BDADDR_LE_RANDOM)
        return a
    }

    /// Binds to `address` and `psm`, or to a fixed channel's `cid` (the kernel allows ATT only).
    func bind(_ address: BluetoothDeviceAddress, psm: UInt16, cid: UInt16 = 0) throws(L2CAPError) {
        var a = Self.socketAddress(address, psm: psm, cid: cid)
        let r = withUnsafePointer(to: &a) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                Glibc.bind(fd, $0, socklen_t(MemoryLayout<sockaddr_l2>.size))
            }
        }
        if r != 0 { throw Self.failure("bind") }
    }

    /// The PSM the socket is bound to (the kernel picks one when bound to PSM 0).
    func boundPSM() throws(L2CAPError) -> UInt16 {
        var a = sockaddr_l2()
        var length = socklen_t(MemoryLayout<sockaddr_l2>.size)
        let r = withUnsafeMutablePointer(to: &a) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) }
        }
        if r != 0 { throw Self.failure("getsockname") }
        return UInt16(littleEndian: a.l2_psm)
    }

    /// The peer of a connected socket.
    func peerAddress() -> BluetoothDeviceAddress? {
        var a = sockaddr_l2()
        var length = socklen_t(MemoryLayout<sockaddr_l2>.size)
        let r = withUnsafeMutablePointer(to: &a) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getpeername(fd, $0, &length) }
        }
        guard r == 0 else { return nil }
        // bdaddr_t holds the address least significant byte first.
        let bytes = withUnsafeBytes(of: a.l2_bdaddr) { Array($0.reversed()) }
        let kind: BluetoothDeviceAddress.Kind = a.l2_bdaddr_type == UInt8(BDADDR_LE_RANDOM) ? .leRandom : .lePublic
        return BluetoothDeviceAddress(bytes: bytes, kind: kind)
    }

    /// A `SOL_BLUETOOTH` option of type uint16 (BT_SNDMTU, BT_RCVMTU).
    func option(_ name: Int32) -> Int? {
        var value: UInt16 = 0
        var length = socklen_t(MemoryLayout<UInt16>.size)
        guard getsockopt(fd, SOL_BLUETOOTH, name, &value, &length) == 0 else { return nil }
        return Int(value)
    }

    /// An MTU option (BT_SNDMTU, BT_RCVMTU): `fallback` when the kernel reports none, never
    /// below the LE minimum of 23 (Core Vol 3 Part A 4.22).
    func mtu(_ name: Int32, fallback: Int) -> Int {
        max(option(name) ?? fallback, L2CAPChannel.minimumMTU)
    }

    func setOption(_ name: Int32, _ value: UInt16) {
        var v = value
        _ = setsockopt(fd, SOL_BLUETOOTH, name, &v, socklen_t(MemoryLayout<UInt16>.size))
    }

    func listen(backlog: Int32) throws(L2CAPError) {
        if Glibc.listen(fd, backlog) != 0 { throw Self.failure("listen") }
    }

    /// Waits for a connection.
    func accept() async throws(L2CAPError) -> L2CAPSocket {
        let fd = fd
        let result: Result<Int32, L2CAPError> = await Self.blocking {
            let client = Glibc.accept(fd, nil, nil)
            return client >= 0 ? .success(client) : .failure(Self.failure("accept"))
        }
        if shutDown { throw .closed }
        return L2CAPSocket(fd: try result.get())
    }

    /// Connects to `psm` on `address`, or to its fixed channel `cid`.
    func connect(_ address: BluetoothDeviceAddress, psm: UInt16, cid: UInt16 = 0) async throws(L2CAPError) {
        let fd = fd
        let result: Result<Void, L2CAPError> = await Self.blocking {
            var a = L2CAPSocket.socketAddress(address, psm: psm, cid: cid)
            let r = withUnsafePointer(to: &a) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                    Glibc.connect(fd, $0, socklen_t(MemoryLayout<sockaddr_l2>.size))
                }
            }
            return r == 0 ? .success(()) : .failure(Self.failure("connect"))
        }
        if shutDown { throw .closed }
        try result.get()
    }

    /// One SDU; nil at the end of the stream.
    func receive(maximum: Int) async throws(L2CAPError) -> [UInt8]? {
        let fd = fd
        let result: Result<[UInt8]?, L2CAPError> = await Self.blocking {
            // Received straight into the array, not zeroed first: most SDUs are far smaller
            // than the largest one allowed.
            var n = 0
            let sdu = [UInt8](unsafeUninitializedCapacity: maximum) { buffer, count in
                n = recv(fd, buffer.baseAddress, maximum, 0)
                count = max(n, 0)
            }
            if n < 0 { return .failure(Self.failure("recv")) }
            if n == 0 { return .success(nil) }
            return .success(sdu)
        }
        if shutDown { throw .closed }
        return try result.get()
    }

    /// `bytes` as SDUs of at most `sduSize` bytes, in order, in one blocking call (one hop
    /// off the cooperative pool per message, not per SDU); returns once the socket took all.
    func send(_ bytes: [UInt8], sduSize: Int) async throws(L2CAPError) {
        precondition(sduSize > 0, "an SDU size of zero")
        let fd = fd
        let result: Result<Void, L2CAPError> = await Self.blocking {
            bytes.withUnsafeBytes { all in
                var offset = 0
                while offset < all.count {
                    let size = min(sduSize, all.count - offset)
                    let sdu = UnsafeRawBufferPointer(rebasing: all[offset..<offset + size])
                    if let failure = Self.sendPacket(fd, sdu) { return .failure(failure) }
                    offset += size
                }
                return .success(())
            }
        }
        if shutDown { throw .closed }
        try result.get()
    }

    /// `packet` as one packet (one SDU; on a fixed channel, one PDU) in one blocking call;
    /// returns once the socket took it. An empty packet sends nothing: the one fixed channel
    /// open to user space, ATT's, has no empty PDU.
    func send(packet: [UInt8]) async throws(L2CAPError) {
        guard !packet.isEmpty else { return }
        let fd = fd
        let result: Result<Void, L2CAPError> = await Self.blocking {
            packet.withUnsafeBytes { bytes in Self.sendPacket(fd, bytes).map { .failure($0) } ?? .success(()) }
        }
        if shutDown { throw .closed }
        try result.get()
    }

    /// One `send` of `bytes` as one packet: nil once the socket took them all, else why not.
    private static func sendPacket(_ fd: Int32, _ bytes: UnsafeRawBufferPointer) -> L2CAPError? {
        let n = Glibc.send(fd, bytes.baseAddress, bytes.count, Int32(MSG_NOSIGNAL))
        if n < 0 { return failure("send") }
        guard n == bytes.count else { return .system(call: "send", errno: 0, message: "short write of \(n) bytes") }
        return nil
    }

    private static func blocking<T: Sendable>(_ body: @escaping @Sendable () -> Result<T, L2CAPError>) async -> Result<
        T, L2CAPError
    > {
        await withCheckedContinuation { continuation in
            queue.async { continuation.resume(returning: body()) }
        }
    }

    static func failure(_ call: String) -> L2CAPError {
        let code = errno
        return .system(call: call, errno: code, message: String(cString: strerror(code)))
    }
}

import DBus
import Dispatch
import Synchronization

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

/// Our end of a socket handed to BlueZ by `AcquireWrite` or `AcquireNotify`: a
/// `SOCK_SEQPACKET` pair, one packet per ATT value.
///
/// Incoming packets (writes, or indication confirmations) and the peer's hang-up are
/// watched with a dispatch source on a private queue; sending never blocks (a full socket
/// is waited on asynchronously).
final class GattSocket: @unchecked Sendable {
    // @unchecked: `source` is set once in `start` and used under `lock` afterwards.
    let fd: Int32
    let mtu: Int
    private let queue = DispatchQueue(label: "bluez.gatt-socket")
    private let lock = Mutex(false)  // closed
    private var source: (any DispatchSourceRead)?

    /// Makes a pair; returns our end and the peer's end (to pass over D-Bus).
    static func makePair(mtu: Int) throws -> (GattSocket, DBusFileDescriptor) {
        var fds: [Int32] = [-1, -1]
        let type = Int32(SOCK_SEQPACKET.rawValue) | Int32(SOCK_CLOEXEC.rawValue)
        guard socketpair(AF_UNIX, type, 0, &fds) == 0 else {
            throw BlueZError.invalidState("socketpair failed: errno \(errno)")
        }
        _ = fcntl(fds[0], F_SETFL, fcntl(fds[0], F_GETFL) | O_NONBLOCK)
        return (GattSocket(fd: fds[0], mtu: mtu), DBusFileDescriptor(taking: fds[1]))
    }

    /// Our end of a socket BlueZ handed us (a client's `AcquireWrite`): a duplicate of
    /// `descriptor`, non-blocking, owned here.
    static func adopting(_ descriptor: DBusFileDescriptor, mtu: Int) throws -> GattSocket {
        let fd = try descriptor.duplicate()
        _ = fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK)
        return GattSocket(fd: fd, mtu: mtu)
    }

    private init(fd: Int32, mtu: Int) {
        self.fd = fd
        self.mtu = mtu
    }

    /// Starts watching: `onPacket` for each packet received, then `onClose` once when the
    /// peer hangs up (or ``close()`` is called).
    func start(onPacket: @escaping @Sendable ([UInt8]) -> Void, onClose: @escaping @Sendable () -> Void) {
        let fd = self.fd
        let source = DispatchSource.makeReadSource(fileDescriptor: fd, queue: queue)
        source.setEventHandler { [weak self] in
            var buffer = [UInt8](repeating: 0, count: 65_536)
            while true {
                let count = recv(fd, &buffer, buffer.count, Int32(MSG_DONTWAIT))
                if count > 0 {
                    onPacket(Array(buffer[..<count]))
                    continue
                }
                if count < 0, errno == EINTR { continue }
                if count < 0, errno == EAGAIN || errno == EWOULDBLOCK { return }
                // 0: the peer closed its end; other errors end the socket too.
                self?.close()
                return
            }
        }
        source.setCancelHandler {
            Glibc.close(fd)
            onClose()
        }
        lock.withLock { _ in self.source = source }
        source.resume()
    }

    /// Sends one packet; returns when the kernel has taken it (waits while the socket is full).
    func send(_ bytes: [UInt8]) async throws {
        while true {
            if lock.withLock({ $0 }) { throw BlueZError.invalidState("the notification socket is closed") }
            let sent = bytes.withUnsafeBytes {
                Glibc.send(fd, $0.baseAddress, $0.count, Int32(MSG_DONTWAIT | MSG_NOSIGNAL))
            }
            if sent == bytes.count { return }
            if sent < 0, errno == EINTR { continue }
            if sent < 0, errno == EAGAIN || errno == EWOULDBLOCK {
                guard await waitWritable() else {
                    close()
                    throw BlueZError.timedOut("bluetoothd taking the next value from the socket")
                }
                continue
            }
            close()
            throw BlueZError.invalidState("the notification socket failed: errno \(errno)")
        }
    }

    /// Returns once the peer has read every packet sent (the socket's send queue is empty),
    /// the socket closed, or `limit` passed (a peer that stopped reading).
    func waitUntilRead(limit: Duration = .seconds(5)) async {
        let clock = ContinuousClock()
        let deadline = clock.now + limit
        while !lock.withLock({ $0 }), clock.now < deadline {
            var queued: Int32 = 0
            // SIOCOUTQ (= TIOCOUTQ) on a Unix socket: bytes sent and not yet read by the peer.
            guard ioctl(fd, UInt(TIOCOUTQ), &queued) == 0, queued > 0 else { return }
            try? await Task.sleep(for: .milliseconds(2))
        }
    }

    /// How long a full socket may stay full: bluetoothd reads it as the link takes values,
    /// so this long means bluetoothd or the link is stuck (a session must not wait forever).
    static let writableTimeout: Double = 30

    /// Waits until the socket takes more; false after ``writableTimeout``.
    private func waitWritable() async -> Bool {
        let fd = self.fd
        let queue = self.queue
        return await withCheckedContinuation { (continuation: CheckedContinuation<Bool, Never>) in
            let waiter = WritableWaiter(
                source: DispatchSource.makeWriteSource(fileDescriptor: fd, queue: queue), continuation: continuation)
            waiter.source.setEventHandler { waiter.finish(writable: true) }
            waiter.source.resume()
            queue.asyncAfter(deadline: .now() + Self.writableTimeout) { waiter.finish(writable: false) }
        }
    }

    /// One wait for writability: whichever comes first, the socket or the deadline, resumes.
    // @unchecked: `source` and `done` are used only on the socket's serial queue (the write
    // source's handler and the deadline both run there).
    private final class WritableWaiter: @unchecked Sendable {
        let source: any DispatchSourceWrite
        private let continuation: CheckedContinuation<Bool, Never>
        private var done = false

        init(source: any DispatchSourceWrite, continuation: CheckedContinuation<Bool, Never>) {
            self.source = source
            self.continuation = continuation
        }

        func finish(writable: Bool) {
            guard !done else { return }
            done = true
            source.cancel()
            continuation.resume(returning: writable)
        }
    }

    /// Stops watching and closes our end (the peer sees a hang-up). Idempotent.
    func close() {
        let (wasOpen, source) = lock.withLock { closed -> (Bool, (any DispatchSourceRead)?) in
            defer { closed = true }
            return (!closed, self.source)
        }
        guard wasOpen else { return }
        if let source { source.cancel() } else { Glibc.close(fd) }
    }
}

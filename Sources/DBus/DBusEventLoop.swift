import CDBus
import Synchronization

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

/// One thread that owns one libdbus connection: the serial executor of a ``DBusConnection``.
///
/// The thread alternates between running queued work (actor jobs and closures, in order) and
/// a `poll(2)` over the connection's watches (`dbus_connection_set_watch_functions`), its
/// timeouts and a wake-up pipe. Every libdbus call for the connection happens on this
/// thread, so libdbus's own locking is never contended and no call can block another
/// connection; a slow peer only delays the replies it owes.
final class DBusEventLoop: SerialExecutor, @unchecked Sendable {
    // `@unchecked Sendable`: `queue` and `threadID` are behind mutexes; `watches`,
    // `timeouts` and `service` are touched on the loop thread only.

    private enum Work {
        case job(UnownedJob)
        case closure(@Sendable () -> Void)
    }

    private struct Queue {
        var work: [Work] = []
        var stopping = false
    }

    private struct TimeoutEntry {
        let timeout: OpaquePointer
        var deadline: Int64
    }

    private let queue = Mutex(Queue())
    private let threadID = Mutex<pthread_t?>(nil)
    /// Self-pipe: writing to `wakeWrite` wakes the poll on `wakeRead`.
    private let wakeRead: Int32
    private let wakeWrite: Int32

    private var watches: [OpaquePointer] = []
    private var timeouts: [TimeoutEntry] = []
    /// Called on the loop thread after queued work and after I/O: dispatches incoming messages.
    var service: (() -> Void)?

    init() {
        var pipeFDs: [Int32] = [-1, -1]
        precondition(pipe(&pipeFDs) == 0, "pipe failed")
        for fd in pipeFDs {
            _ = fcntl(fd, F_SETFD, FD_CLOEXEC)
            _ = fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK)
        }
        wakeRead = pipeFDs[0]
        wakeWrite = pipeFDs[1]
        let context = Unmanaged.passRetained(self).toOpaque()
        var thread = pthread_t()
        let rc = pthread_create(
            &thread, nil,
            { context in
                let loop = Unmanaged<DBusEventLoop>.fromOpaque(context!).takeRetainedValue()
                loop.run()
                return nil
            }, context)
        precondition(rc == 0, "pthread_create failed")
        pthread_detach(thread)
    }

    // MARK: SerialExecutor

    func enqueue(_ job: consuming ExecutorJob) {
        let unowned = UnownedJob(job)
        queue.withLock { $0.work.append(.job(unowned)) }
        wake()
    }

    func asUnownedSerialExecutor() -> UnownedSerialExecutor {
        UnownedSerialExecutor(ordinary: self)
    }

    func checkIsolated() {
        precondition(isOnLoopThread, "not on this D-Bus connection's thread")
    }

    var isOnLoopThread: Bool {
        guard let id = threadID.withLock({ $0 }) else { return false }
        return pthread_equal(id, pthread_self()) != 0
    }

    // MARK: Work

    /// Runs `closure` on the loop thread, after the work already queued.
    func execute(_ closure: @escaping @Sendable () -> Void) {
        queue.withLock { $0.work.append(.closure(closure)) }
        wake()
    }

    /// Ends the thread after the work already queued (queue the connection's teardown first).
    func stop() {
        queue.withLock { $0.stopping = true }
        wake()
    }

    func wake() {
        var one: UInt8 = 1
        _ = write(wakeWrite, &one, 1)
    }

    private func run() {
        threadID.withLock { $0 = pthread_self() }
        Self.nameThisThread("dbus-loop")
        while true {
            let (work, stopping) = queue.withLock { q in
                defer { q.work.removeAll(keepingCapacity: true) }
                return (q.work, q.stopping)
            }
            for item in work {
                switch item {
                case .job(let job): job.runSynchronously(on: asUnownedSerialExecutor())
                case .closure(let closure): closure()
                }
            }
            if stopping && queue.withLock({ $0.work.isEmpty }) { break }
            service?()
            if !queue.withLock({ $0.work.isEmpty }) { continue }
            pollOnce()
        }
        service = nil
        close(wakeRead)
        close(wakeWrite)
    }

    /// Names the calling thread (its `comm`, shown by ps and top and in the idle benchmark's
    /// thread list), which otherwise keeps the name of the Dispatch worker that created it.
    /// Best effort: a system without /proc keeps the old name.
    private static func nameThisThread(_ name: String) {
        let fd = open("/proc/thread-self/comm", O_WRONLY | O_CLOEXEC)
        guard fd >= 0 else { return }
        defer { close(fd) }
        var bytes = Array(name.utf8.prefix(15))
        _ = write(fd, &bytes, bytes.count)
    }

    private static func now() -> Int64 {
        var ts = timespec()
        clock_gettime(CLOCK_MONOTONIC, &ts)
        return Int64(ts.tv_sec) * 1000 + Int64(ts.tv_nsec) / 1_000_000
    }

    private func pollOnce() {
        var fds = [pollfd(fd: wakeRead, events: Int16(POLLIN), revents: 0)]
        var polled: [OpaquePointer] = []
        for watch in watches where libdbus.dbus_watch_get_enabled(watch) != 0 {
            let flags = libdbus.dbus_watch_get_flags(watch)
            var events: Int16 = 0
            if flags & DBUS_WATCH_READABLE.rawValue != 0 { events |= Int16(POLLIN) }
            if flags & DBUS_WATCH_WRITABLE.rawValue != 0 { events |= Int16(POLLOUT) }
            fds.append(pollfd(fd: libdbus.dbus_watch_get_unix_fd(watch), events: events, revents: 0))
            polled.append(watch)
        }
        var wait: Int32 = -1
        let now = Self.now()
        for entry in timeouts where libdbus.dbus_timeout_get_enabled(entry.timeout) != 0 {
            let remaining = Int32(clamping: max(0, entry.deadline - now))
            wait = wait < 0 ? remaining : min(wait, remaining)
        }
        let ready = poll(&fds, nfds_t(fds.count), wait)
        if ready < 0 { return }  // EINTR: go round again
        if fds[0].revents != 0 {
            var drain = [UInt8](repeating: 0, count: 64)
            while read(wakeRead, &drain, drain.count) > 0 {}
        }
        for (index, watch) in polled.enumerated() {
            let revents = fds[index + 1].revents
            guard revents != 0, watches.contains(watch) else { continue }
            var flags: UInt32 = 0
            if revents & Int16(POLLIN) != 0 { flags |= DBUS_WATCH_READABLE.rawValue }
            if revents & Int16(POLLOUT) != 0 { flags |= DBUS_WATCH_WRITABLE.rawValue }
            if revents & Int16(POLLERR) != 0 { flags |= DBUS_WATCH_ERROR.rawValue }
            if revents & Int16(POLLHUP) != 0 { flags |= DBUS_WATCH_HANGUP.rawValue }
            _ = libdbus.dbus_watch_handle(watch, flags)
        }
        let after = Self.now()
        let due = timeouts.filter { libdbus.dbus_timeout_get_enabled($0.timeout) != 0 && $0.deadline <= after }
        for entry in due {
            guard let index = timeouts.firstIndex(where: { $0.timeout == entry.timeout }) else { continue }
            timeouts[index].deadline = after + Int64(libdbus.dbus_timeout_get_interval(entry.timeout))
            _ = libdbus.dbus_timeout_handle(entry.timeout)
        }
    }

    // MARK: libdbus main-loop integration

    /// Installs this loop's watch, timeout and wake-up functions on `connection`. Loop thread only.
    func attach(_ connection: OpaquePointer) -> Bool {
        let context = Unmanaged.passUnretained(self).toOpaque()
        let watchesOK = libdbus.dbus_connection_set_watch_functions(
            connection,
            { watch, context in
                DBusEventLoop.from(context).watches.append(watch!)
                return 1
            },
            { watch, context in
                DBusEventLoop.from(context).watches.removeAll { $0 == watch }
            },
            { _, _ in },
            context, nil)
        let timeoutsOK = libdbus.dbus_connection_set_timeout_functions(
            connection,
            { timeout, context in
                let loop = DBusEventLoop.from(context)
                loop.timeouts.append(
                    TimeoutEntry(
                        timeout: timeout!,
                        deadline: DBusEventLoop.now() + Int64(libdbus.dbus_timeout_get_interval(timeout))))
                return 1
            },
            { timeout, context in
                DBusEventLoop.from(context).timeouts.removeAll { $0.timeout == timeout }
            },
            { timeout, context in
                let loop = DBusEventLoop.from(context)
                if let index = loop.timeouts.firstIndex(where: { $0.timeout == timeout }) {
                    loop.timeouts[index].deadline =
                        DBusEventLoop.now() + Int64(libdbus.dbus_timeout_get_interval(timeout))
                }
            },
            context, nil)
        libdbus.dbus_connection_set_wakeup_main_function(
            connection, { context in DBusEventLoop.from(context).wake() }, context, nil)
        return watchesOK != 0 && timeoutsOK != 0
    }

    private static func from(_ context: UnsafeMutableRawPointer?) -> DBusEventLoop {
        Unmanaged<DBusEventLoop>.fromOpaque(context!).takeUnretainedValue()
    }
}

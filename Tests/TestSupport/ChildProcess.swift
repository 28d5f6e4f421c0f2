import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// Runs helper programs (dbus-daemon, the BlueZoo script) from tests.
public enum ChildProcess {
    /// posix_spawn + waitpid, standard output to `stdout` (a file, not a pipe: a forked
    /// daemon keeps it open for good), with an empty signal mask and SIGTERM, SIGINT and
    /// SIGPIPE at their defaults: test threads block SIGTERM and children inherit the mask,
    /// which would make a daemon unkillable. Returns the exit status, or nil when the
    /// program could not be started.
    public static func run(_ argv: [String], stdout: String = "/dev/null") -> Int32? {
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 1, stdout, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        var mask = sigset_t()
        sigemptyset(&mask)
        posix_spawnattr_setsigmask(&attributes, &mask)
        var defaults = sigset_t()
        sigemptyset(&defaults)
        sigaddset(&defaults, SIGTERM)
        sigaddset(&defaults, SIGINT)
        sigaddset(&defaults, SIGPIPE)
        posix_spawnattr_setsigdefault(&attributes, &defaults)
        posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF))
        var pointers = argv.map { strdup($0) } + [nil]
        defer { for pointer in pointers { free(pointer) } }
        var pid: pid_t = 0
        guard posix_spawn(&pid, argv[0], &actions, &attributes, &pointers, environ) == 0 else { return nil }
        var status: Int32 = 0
        while waitpid(pid, &status, 0) < 0 && errno == EINTR {}
        return (status >> 8) & 0xFF
    }

    /// Runs `work` on a thread of its own: blocking in `waitpid` on the cooperative pool
    /// (two threads on two cores) would stall every other test running in parallel.
    public static func offPool<T: Sendable>(_ work: @escaping @Sendable () throws -> T) async throws -> T {
        try await withCheckedThrowingContinuation { continuation in
            Thread { continuation.resume(with: Result { try work() }) }.start()
        }
    }
}

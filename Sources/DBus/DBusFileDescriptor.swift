#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

/// A file descriptor owned by this object: closed when the last reference goes.
///
/// Used for D-Bus `h` (UNIX_FD) values. Sending one duplicates it (libdbus sends a copy), so
/// the sender keeps its own; one received from the bus is a fresh descriptor owned here.
/// Use ``duplicate()`` to take a descriptor whose lifetime you manage yourself.
public final class DBusFileDescriptor: Hashable, Sendable, CustomStringConvertible {
    /// The descriptor; valid while this object lives.
    public let rawValue: Int32

    /// Takes ownership of `fd` (it is closed when this object goes).
    public init(taking fd: Int32) {
        rawValue = fd
    }

    /// Duplicates `fd` (close-on-exec); the caller keeps `fd`.
    public convenience init(duplicating fd: Int32) throws(DBusError) {
        let copy = fcntl(fd, F_DUPFD_CLOEXEC, 0)
        guard copy >= 0 else { throw .failed("dup failed: errno \(errno)") }
        self.init(taking: copy)
    }

    deinit {
        close(rawValue)
    }

    /// A new descriptor for the same open file, owned by the caller (close-on-exec).
    public func duplicate() throws(DBusError) -> Int32 {
        let copy = fcntl(rawValue, F_DUPFD_CLOEXEC, 0)
        guard copy >= 0 else { throw .failed("dup failed: errno \(errno)") }
        return copy
    }

    public static func == (lhs: DBusFileDescriptor, rhs: DBusFileDescriptor) -> Bool { lhs === rhs }
    public func hash(into hasher: inout Hasher) { hasher.combine(ObjectIdentifier(self)) }
    public var description: String { "fd \(rawValue)" }
}

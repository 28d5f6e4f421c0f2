#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

/// Reads a file that comes from outside (a path on the command line, standard input, a file
/// a configuration names) with a size limit: reading stops one byte past it, so an endless
/// stream (`/dev/zero`, a pipe that never ends) costs at most the limit. A directory or a
/// named pipe nobody writes to is refused at once instead of failing obscurely or hanging.
public enum BoundedFile {
    /// The bytes of `path`, or of standard input for "-"; at most `limit`.
    /// - Parameter what: what the file is, for messages ("credential file", "device key").
    public static func read(_ path: String, limit: Int, what: String) throws(BoundedFileError) -> [UInt8] {
        if path == "-" { return try readAll(fd: 0, path: path, limit: limit, what: what) }
        // Non-blocking, so that opening a FIFO does not wait for a writer.
        let fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC)
        guard fd >= 0 else { throw openError(errno, path: path, what: what) }
        defer { close(fd) }
        var info = stat()
        guard fstat(fd, &info) == 0 else { throw openError(errno, path: path, what: what) }
        switch info.st_mode & S_IFMT {
        case S_IFDIR:
            throw .isDirectory(path: path, what: what)
        case S_IFIFO:
            // No writer: a read returns end of file at once. A writer that has not written
            // yet: EAGAIN, and the pipe is read blocking from then on.
            var probe: UInt8 = 0
            let n = Glibc.read(fd, &probe, 1)
            if n == 0 { throw .fifoWithoutWriter(path: path, what: what) }
            if n < 0, errno != EAGAIN { throw openError(errno, path: path, what: what) }
            _ = fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) & ~O_NONBLOCK)
            let rest = try readAll(fd: fd, path: path, limit: limit - (n == 1 ? 1 : 0), what: what)
            return (n == 1 ? [probe] : []) + rest
        default:
            _ = fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) & ~O_NONBLOCK)
            return try readAll(fd: fd, path: path, limit: limit, what: what)
        }
    }

    /// UTF-8 text of `path` (invalid sequences replaced), at most `limit` bytes.
    public static func readText(_ path: String, limit: Int, what: String) throws(BoundedFileError) -> String {
        String(decoding: try read(path, limit: limit, what: what), as: UTF8.self)
    }

    private static func readAll(fd: Int32, path: String, limit: Int, what: String) throws(BoundedFileError) -> [UInt8] {
        var bytes: [UInt8] = []
        let chunk = 64 * 1024
        var buffer = [UInt8](repeating: 0, count: chunk)
        while true {
            let want = min(chunk, limit + 1 - bytes.count)
            if want <= 0 { throw .tooLarge(path: path, what: what, limit: max(0, limit)) }
            let n = buffer.withUnsafeMutableBytes { Glibc.read(fd, $0.baseAddress, want) }
            if n < 0 {
                if errno == EINTR { continue }
                if errno == EISDIR { throw .isDirectory(path: path, what: what) }
                throw .unreadable(path: path, what: what, reason: String(cString: strerror(errno)))
            }
            if n == 0 { return bytes }
            bytes += buffer[0..<n]
            if bytes.count > limit { throw .tooLarge(path: path, what: what, limit: limit) }
        }
    }

    private static func openError(_ code: Int32, path: String, what: String) -> BoundedFileError {
        switch code {
        case ENOENT, ENOTDIR: .notFound(path: path, what: what)
        case EACCES, EPERM: .permissionDenied(path: path, what: what)
        case EISDIR: .isDirectory(path: path, what: what)
        default: .unreadable(path: path, what: what, reason: String(cString: strerror(code)))
        }
    }
}

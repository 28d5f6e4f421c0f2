/// Why an outside file was not read. Each says what is wrong with the file and what to do;
/// none repeats the file's content.
public enum BoundedFileError: Error, Sendable, Equatable, CustomStringConvertible {
    case notFound(path: String, what: String)
    case permissionDenied(path: String, what: String)
    case isDirectory(path: String, what: String)
    /// A FIFO (named pipe) that nobody writes to: reading it would wait forever.
    case fifoWithoutWriter(path: String, what: String)
    /// More bytes than `limit`; reading stopped there.
    case tooLarge(path: String, what: String, limit: Int)
    /// Anything else the system reported (errno's text).
    case unreadable(path: String, what: String, reason: String)

    public var description: String {
        switch self {
        case .notFound(let path, let what):
            "cannot read the \(what) \(Self.show(path)): no such file; check the path"
        case .permissionDenied(let path, let what):
            "cannot read the \(what) \(Self.show(path)): permission denied; make it readable by this user"
        case .isDirectory(let path, let what):
            "cannot read the \(what) \(Self.show(path)): it is a directory; give the file inside it"
        case .fifoWithoutWriter(let path, let what):
            "cannot read the \(what) \(Self.show(path)): it is a named pipe with no writer; start the writer first or give a regular file"
        case .tooLarge(let path, let what, let limit):
            "the \(what) \(Self.show(path)) is larger than \(Self.size(limit)), the most accepted for it; check that it is the right file"
        case .unreadable(let path, let what, let reason):
            "cannot read the \(what) \(Self.show(path)): \(reason)"
        }
    }

    /// A path as shown in a message: standard input by name, long paths cut.
    static func show(_ path: String) -> String {
        if path == "-" { return "on standard input" }
        return path.count > 256 ? String(path.prefix(256)) + "…" : path
    }

    static func size(_ bytes: Int) -> String {
        if bytes >= 1024 * 1024, bytes % (1024 * 1024) == 0 { return "\(bytes / (1024 * 1024)) MiB" }
        if bytes >= 1024, bytes % 1024 == 0 { return "\(bytes / 1024) KiB" }
        return "\(bytes) bytes"
    }
}

import BoundedFile
import FoundationEssentials

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Writes to standard output and standard error unbuffered, so a line (an `mdoc:` URI
/// another program waits for) is out the moment it is printed, terminal or pipe.
///
/// The bytes go straight to the file descriptor: an interrupted write is retried, and one that
/// fails (a terminal that hung up answers `EIO`) is dropped, never a crash (Foundation's
/// `FileHandle.write` traps on such an error).
public enum Output {
    /// A line on standard output.
    public static func line(_ text: String) {
        write(text + "\n", to: STDOUT_FILENO)
    }

    /// A line on standard error.
    public static func warn(_ text: String) {
        write(text + "\n", to: STDERR_FILENO)
    }

    /// All of `text` to `fd`, or as much as the descriptor takes before it fails.
    public static func write(_ text: String, to fd: Int32) {
        DescriptorWrite.all(Array(text.utf8), to: fd)
    }
}

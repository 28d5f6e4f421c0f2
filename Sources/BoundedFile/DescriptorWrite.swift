#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// Writes straight to a file descriptor: an interrupted write is retried, one that fails (a
/// terminal that hung up answers `EIO`, a closed pipe `EPIPE`) is reported, never a crash
/// (Foundation's `FileHandle.write` traps on such an error). Standard output, standard error,
/// the consent terminal and the service log all write through here.
public enum DescriptorWrite {
    /// All of `bytes` to `fd`; false when the descriptor stopped taking them.
    @discardableResult
    public static func all(_ bytes: [UInt8], to fd: Int32) -> Bool {
        var offset = 0
        while offset < bytes.count {
            let written = bytes.withUnsafeBytes { buffer in
                systemWrite(fd, buffer.baseAddress! + offset, buffer.count - offset)
            }
            if written > 0 {
                offset += written
            } else if written < 0 && errno == EINTR {
                continue
            } else {
                return false
            }
        }
        return true
    }
}

private func systemWrite(_ fd: Int32, _ bytes: UnsafeRawPointer, _ count: Int) -> Int {
    write(fd, bytes, count)
}

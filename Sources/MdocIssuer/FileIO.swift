import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Reading and writing the issuer's files. Key files are created with mode 0600 from the start
/// (never world-readable, not even briefly).
public enum IssuerFiles {
    /// Reads a whole file.
    public static func read(_ url: URL) throws(IssuerError) -> [UInt8] {
        let data: Data
        do {
            data = try Data(contentsOf: url)
        } catch {
            throw .file(
                path: url.path,
                reason: FileManager.default.fileExists(atPath: url.path)
                    ? "cannot be read" : "no such file")
        }
        return [UInt8](data)
    }

    /// Reads a whole file as UTF-8 text.
    public static func readText(_ url: URL) throws(IssuerError) -> String {
        String(decoding: try read(url), as: UTF8.self)
    }

    /// Writes `bytes` to `url`, replacing it, with permissions `mode` (0600 for keys). An existing
    /// file is truncated and its mode set before anything is written.
    public static func write(_ bytes: [UInt8], to url: URL, mode: mode_t = 0o644) throws(IssuerError) {
        let path = url.path
        let fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, mode)
        guard fd >= 0 else {
            throw .file(path: path, reason: "cannot be created (\(String(cString: strerror(errno))))")
        }
        defer { close(fd) }
        guard fchmod(fd, mode) == 0 else {
            throw .file(path: path, reason: "cannot set its mode (\(String(cString: strerror(errno))))")
        }
        var offset = 0
        while offset < bytes.count {
            let written = bytes[offset...].withUnsafeBytes { posixWrite(fd, $0.baseAddress, $0.count) }
            if written < 0 {
                if errno == EINTR { continue }
                throw .file(path: path, reason: "cannot be written (\(String(cString: strerror(errno))))")
            }
            offset += written
        }
    }

    /// Writes a private key file (PEM text), mode 0600.
    public static func writeSecret(_ text: String, to url: URL) throws(IssuerError) {
        try write(Array(text.utf8), to: url, mode: 0o600)
    }

    /// Makes `directory` (and its parents) if it does not exist.
    public static func makeDirectory(_ directory: URL) throws(IssuerError) {
        do {
            try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        } catch {
            throw .file(path: directory.path, reason: "cannot create the directory")
        }
    }
}

/// `write(2)`, out of reach of the name of ``IssuerFiles/write(_:to:mode:)``.
private func posixWrite(_ fd: Int32, _ buffer: UnsafeRawPointer?, _ count: Int) -> Int {
    write(fd, buffer, count)
}

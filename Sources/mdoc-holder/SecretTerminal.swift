import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

/// The controlling terminal for one secret line (a transaction code): echo is off while it is
/// typed and restored afterwards, whatever happens.
struct SecretTerminal {
    private let handle: FileHandle

    init() throws {
        guard let handle = FileHandle(forUpdatingAtPath: "/dev/tty") else {
            throw WalletCLIError(
                "no terminal to ask the transaction code on: give it with --tx-code-file FILE (- for standard input)")
        }
        self.handle = handle
    }

    /// Writes `prompt`, reads one line without echo; nil at end of input.
    func readSecret(prompt: String) -> String? {
        handle.write(Data(prompt.utf8))
        let fd = handle.fileDescriptor
        var saved = termios()
        let canHide = tcgetattr(fd, &saved) == 0
        if canHide {
            var hidden = saved
            hidden.c_lflag &= ~tcflag_t(ECHO)
            _ = tcsetattr(fd, TCSAFLUSH, &hidden)
        }
        defer {
            if canHide { _ = tcsetattr(fd, TCSAFLUSH, &saved) }
            handle.write(Data("\n".utf8))
        }
        var bytes: [UInt8] = []
        while true {
            let chunk = handle.readData(ofLength: 1)
            guard let byte = chunk.first else { return bytes.isEmpty ? nil : String(decoding: bytes, as: UTF8.self) }
            if byte == 0x0A { return String(decoding: bytes, as: UTF8.self) }
            if byte != 0x0D { bytes.append(byte) }
        }
    }
}

import Foundation

#if canImport(Glibc)
    import Glibc
#endif

nonisolated(unsafe) private var softHSMDirectory: String?

/// A softhsm2 token (Debian `softhsm2`) for the pkcs11 secure-area tests: one token store per
/// test process (SOFTHSM2_CONF is read once, when the module initialises), one initialised
/// token in it.
public final class SoftHSM: Sendable {
    public static let module = "/usr/lib/softhsm/libsofthsm2.so"
    public let tokenLabel = "mdoc-holder-tests"
    public let pin = "123456"
    public let directory: String

    /// The process's token, made on first use.
    public static func shared() throws -> SoftHSM {
        try lock.withLock {
            if let made = made { return made }
            let token = try SoftHSM()
            made = token
            return token
        }
    }

    private static let lock = NSLock()
    nonisolated(unsafe) private static var made: SoftHSM?

    private init() throws {
        guard FileManager.default.fileExists(atPath: Self.module) else {
            throw SoftwareTPMError("no \(Self.module): Tests/Support/install-deps.sh test installs softhsm2")
        }
        directory = NSTemporaryDirectory() + "softhsm-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: directory + "/tokens", withIntermediateDirectories: true)
        let conf = directory + "/softhsm2.conf"
        try "directories.tokendir = \(directory)/tokens\nobjectstore.backend = file\nlog.level = ERROR\n".write(
            toFile: conf, atomically: true, encoding: .utf8)
        setenv("SOFTHSM2_CONF", conf, 1)
        // The token store goes when the test process exits.
        softHSMDirectory = directory
        atexit {
            if let directory = softHSMDirectory { try? FileManager.default.removeItem(atPath: directory) }
        }
        let status = ChildProcess.run([
            "/usr/bin/softhsm2-util", "--init-token", "--free", "--label", tokenLabel, "--pin", pin, "--so-pin",
            "654321",
        ])
        guard status == 0 else {
            throw SoftwareTPMError("softhsm2-util --init-token failed (\(String(describing: status)))")
        }
    }
}

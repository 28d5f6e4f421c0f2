import Foundation
import MdocCrypto
import SecureArea

/// The secure areas a benchmark can reach on this machine, each with a P-256 key made in it:
/// the software area (the default, a KEK in memory), a softhsm2 token made in a temporary
/// directory (Debian `softhsm2`), the tpm2 area against the TPM at `--tpm-tcti` or a swtpm
/// started on loopback (Debian `swtpm`). An area that cannot be reached is listed with why.
/// `stop()` ends what was started.
final class BenchmarkAreas {
    struct Reachable {
        /// "software", "pkcs11", "tpm2".
        let name: String
        /// What it runs against, for labels.
        let detail: String
        let area: any SecureArea
        let key: StoredKey
        /// Whether the key's operations run outside this process (its CPU is not the thread's).
        let outsideProcess: Bool

        var deviceKey: SecureAreaKey { try! SecureAreaKey(key, in: area) }
    }

    private(set) var reachable: [Reachable] = []
    /// Area name and why it was not reached.
    private(set) var unreachable: [(String, String)] = []
    private var swtpm: Process?
    private var temporary: [String] = []

    init(tcti: String?) {
        do {
            let software = SoftwareSecureArea(source: .given(.ephemeral()))
            reachable.append(
                Reachable(
                    name: "software", detail: "AES-256-GCM unwrap per use", area: software,
                    key: try software.createKey(KeySettings()), outsideProcess: false))
        } catch {
            unreachable.append(("software", "\(error)"))
        }
        addPKCS11()
        addTPM(tcti: tcti)
    }

    func stop() {
        swtpm?.terminate()
        swtpm?.waitUntilExit()
        swtpm = nil
        for path in temporary { try? FileManager.default.removeItem(atPath: path) }
        temporary = []
    }

    private func addPKCS11() {
        let module = "/usr/lib/softhsm/libsofthsm2.so"
        guard FileManager.default.fileExists(atPath: module),
            FileManager.default.isExecutableFile(atPath: "/usr/bin/softhsm2-util")
        else {
            unreachable.append(("pkcs11", "no softhsm2: apt-get install softhsm2"))
            return
        }
        let directory = NSTemporaryDirectory() + "bench-softhsm-\(UUID().uuidString)"
        temporary.append(directory)
        do {
            try FileManager.default.createDirectory(atPath: directory + "/tokens", withIntermediateDirectories: true)
            try "directories.tokendir = \(directory)/tokens\nlog.level = ERROR\n".write(
                toFile: directory + "/softhsm2.conf", atomically: true, encoding: .utf8)
            setenv("SOFTHSM2_CONF", directory + "/softhsm2.conf", 1)
            let initialise = Process()
            initialise.executableURL = URL(fileURLWithPath: "/usr/bin/softhsm2-util")
            initialise.arguments = ["--init-token", "--free", "--label", "bench", "--pin", "1234", "--so-pin", "4321"]
            initialise.standardOutput = FileHandle.nullDevice
            try initialise.run()
            initialise.waitUntilExit()
            let area = PKCS11SecureArea(modulePath: module, tokenLabel: "bench", pin: "1234")
            reachable.append(
                Reachable(
                    name: "pkcs11", detail: "softhsm2; session + login per use", area: area,
                    key: try area.createKey(KeySettings()), outsideProcess: true))
        } catch {
            unreachable.append(("pkcs11", "\(error)"))
        }
    }

    private func addTPM(tcti: String?) {
        var resolved = tcti
        if resolved == nil {
            resolved = startSoftwareTPM()
        }
        guard let resolved else {
            unreachable.append(("tpm2", "no --tpm-tcti and no swtpm to start: apt-get install swtpm tpm2-openssl"))
            return
        }
        let area = TPM2SecureArea(tcti: resolved)
        do {
            reachable.append(
                Reachable(
                    name: "tpm2", detail: "at \(resolved)", area: area, key: try area.createKey(KeySettings()),
                    outsideProcess: true))
        } catch {
            unreachable.append(("tpm2", "\(error)"))
        }
    }

    /// A swtpm on a loopback port, in a temporary state directory; its TCTI, or nil when it
    /// cannot start.
    private func startSoftwareTPM() -> String? {
        guard FileManager.default.isExecutableFile(atPath: "/usr/bin/swtpm") else { return nil }
        let state = NSTemporaryDirectory() + "bench-swtpm-\(UUID().uuidString)"
        try? FileManager.default.createDirectory(atPath: state, withIntermediateDirectories: true)
        temporary.append(state)
        let port = Int.random(in: 20000..<40000)
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/swtpm")
        process.arguments = [
            "socket", "--tpm2", "--tpmstate", "dir=\(state)", "--server", "type=tcp,port=\(port),bindaddr=127.0.0.1",
            "--ctrl", "type=tcp,port=\(port + 1),bindaddr=127.0.0.1", "--flags", "not-need-init,startup-clear",
        ]
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        do {
            try process.run()
        } catch {
            return nil
        }
        swtpm = process
        // Ready when its server port accepts a connection (up to 5 s).
        for _ in 0..<50 where !Self.accepts(port: port) { Thread.sleep(forTimeInterval: 0.1) }
        return "swtpm:host=127.0.0.1,port=\(port)"
    }

    /// Whether something listens on 127.0.0.1:`port`.
    private static func accepts(port: Int) -> Bool {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { return false }
        defer { close(fd) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        address.sin_addr.s_addr = in_addr_t(0x7F00_0001).bigEndian
        return withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) == 0
            }
        }
    }
}

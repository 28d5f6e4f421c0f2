import Foundation
import MdocCrypto
import SecureArea

/// Signing (ES256 over a DeviceAuthentication-sized Sig_structure) and ECDH latency per secure
/// area, wall-clock (a TPM works in another process), median and p90, beside the floor of an
/// in-memory key. The tpm2 area runs against the TPM at `--tpm-tcti TCTI`, else a swtpm this
/// benchmark starts on loopback (Debian `swtpm`), else it is reported as skipped; the pkcs11
/// area against a softhsm2 token made in a temporary directory.
enum SecureAreaBenchmark {
    static func run(iterations: Int, tcti: String?) throws {
        print("secure areas: wall-clock latency per operation, P-256 (\(iterations) runs each)")
        let message = SecureRandom.bytes(700)
        let peer = try PrivateKey.generate(.p256).publicKey

        let memory = try PrivateKey.generate(.p256)
        report("in-memory key (floor)", iterations) {
            _ = try memory.sign(message, algorithm: .es256)
        } ecdh: {
            _ = try memory.sharedSecret(with: peer)
        }

        let software = SoftwareSecureArea(source: .given(.ephemeral()))
        let softwareKey = try software.createKey(KeySettings())
        report("software (AES-256-GCM unwrap per use)", iterations) {
            _ = try software.sign(message, algorithm: .es256, key: softwareKey, passphrase: nil)
        } ecdh: {
            _ = try software.keyAgreement(with: peer, key: softwareKey, passphrase: nil)
        }

        pkcs11(iterations: iterations, message: message, peer: peer)

        var swtpm: Process?
        var swtpmState: String?
        defer {
            swtpm?.terminate()
            swtpm?.waitUntilExit()
            if let state = swtpmState { try? FileManager.default.removeItem(atPath: state) }
        }
        var resolved = tcti
        if resolved == nil {
            (swtpm, resolved, swtpmState) = startSoftwareTPM()
        }
        guard let resolved else {
            print("  tpm2: skipped (no --tpm-tcti and no swtpm to start: apt-get install swtpm tpm2-openssl)")
            return
        }
        let tpm = TPM2SecureArea(tcti: resolved)
        let tpmKey: StoredKey
        do {
            tpmKey = try tpm.createKey(KeySettings())
        } catch {
            print("  tpm2: skipped (\(error))")
            return
        }
        report("tpm2 at \(resolved)", max(iterations / 5, 20)) {
            _ = try tpm.sign(message, algorithm: .es256, key: tpmKey, passphrase: nil)
        } ecdh: {
            _ = try tpm.keyAgreement(with: peer, key: tpmKey, passphrase: nil)
        }
    }

    /// A softhsm2 token in a temporary directory (Debian `softhsm2`), when installed.
    private static func pkcs11(iterations: Int, message: [UInt8], peer: PublicKey) {
        let module = "/usr/lib/softhsm/libsofthsm2.so"
        guard FileManager.default.fileExists(atPath: module),
            FileManager.default.isExecutableFile(atPath: "/usr/bin/softhsm2-util")
        else {
            print("  pkcs11: skipped (no softhsm2: apt-get install softhsm2)")
            return
        }
        let directory = NSTemporaryDirectory() + "bench-softhsm-\(UUID().uuidString)"
        defer { try? FileManager.default.removeItem(atPath: directory) }
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
            let key = try area.createKey(KeySettings())
            report("pkcs11 (softhsm2; session + login per use)", iterations) {
                _ = try area.sign(message, algorithm: .es256, key: key, passphrase: nil)
            } ecdh: {
                _ = try area.keyAgreement(with: peer, key: key, passphrase: nil)
            }
        } catch {
            print("  pkcs11: skipped (\(error))")
        }
    }

    private static func report(
        _ name: String, _ iterations: Int, sign: () throws -> Void, ecdh: () throws -> Void
    ) {
        func one(_ operation: String, _ body: () throws -> Void) {
            do {
                let (median, p90) = try latency(iterations, body)
                let label = "  \(name): \(operation)".padding(toLength: 58, withPad: " ", startingAt: 0)
                print(label + String(format: "%10.1f us median %10.1f us p90", median, p90))
            } catch {
                print("  \(name): \(operation) failed: \(error)")
            }
        }
        one("sign ES256", sign)
        one("ECDH", ecdh)
    }

    private static func latency(_ iterations: Int, _ body: () throws -> Void) throws -> (Double, Double) {
        for _ in 0..<3 { try body() }
        var samples: [Double] = []
        for _ in 0..<iterations {
            let start = DispatchTime.now().uptimeNanoseconds
            try body()
            samples.append(Double(DispatchTime.now().uptimeNanoseconds - start) / 1000)
        }
        samples.sort()
        return (samples[samples.count / 2], samples[min(samples.count - 1, samples.count * 9 / 10)])
    }

    /// A swtpm on a loopback port, in a temporary state directory; nil when it cannot start.
    private static func startSoftwareTPM() -> (Process?, String?, String?) {
        guard FileManager.default.isExecutableFile(atPath: "/usr/bin/swtpm") else { return (nil, nil, nil) }
        let state = NSTemporaryDirectory() + "bench-swtpm-\(UUID().uuidString)"
        try? FileManager.default.createDirectory(atPath: state, withIntermediateDirectories: true)
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
            try? FileManager.default.removeItem(atPath: state)
            return (nil, nil, nil)
        }
        Thread.sleep(forTimeInterval: 0.5)
        return (process, "swtpm:host=127.0.0.1,port=\(port)", state)
    }
}

import Foundation
import MdocCrypto
import SecureArea

/// Signing (ES256 over a DeviceAuthentication-sized Sig_structure) and ECDH latency per secure
/// area, wall-clock (a TPM works in another process), median and p90, beside the floor of an
/// in-memory key. The tpm2 area runs against the TPM at `--tpm-tcti TCTI`, else a swtpm this
/// benchmark starts on loopback (Debian `swtpm`), else it is reported as skipped; the pkcs11
/// area against a softhsm2 token made in a temporary directory (``BenchmarkAreas``).
enum SecureAreaBenchmark {
    static func run(iterations: Int, areas: BenchmarkAreas) throws {
        print("secure areas: wall-clock latency per operation, P-256 (\(iterations) runs each)")
        let message = SecureRandom.bytes(700)
        let peer = try PrivateKey.generate(.p256).publicKey

        let memory = try PrivateKey.generate(.p256)
        report("in-memory key (floor)", iterations) {
            _ = try memory.sign(message, algorithm: .es256)
        } ecdh: {
            _ = try memory.sharedSecret(with: peer)
        }

        for reachable in areas.reachable {
            let (area, key) = (reachable.area, reachable.key)
            report(
                "\(reachable.name) (\(reachable.detail))",
                reachable.name == "tpm2" ? max(iterations / 5, 20) : iterations
            ) {
                _ = try area.sign(message, algorithm: .es256, key: key, passphrase: nil)
            } ecdh: {
                _ = try area.keyAgreement(with: peer, key: key, passphrase: nil)
            }
        }
        for (name, reason) in areas.unreachable { print("  \(name): skipped (\(reason))") }
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
}

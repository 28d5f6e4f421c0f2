import Foundation
import JOSE
import MdocCrypto
import OnlineTransport

/// Tests/Support/status_list_server.py on 127.0.0.1 with a TLS certificate for localhost from
/// a CA made here: it serves the files of ``directory`` and logs every request.
final class StatusListServer: @unchecked Sendable {
    // Set once in init; the process is only terminated by stop().
    let process: Process
    let directory: URL
    let port: Int
    /// The CA the TLS certificate chains to (the `--tls-ca` of the tests).
    let ca: Certificate

    var base: String { "https://localhost:\(port)" }

    init() async throws {
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("status-lists-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let tls = directory.appendingPathComponent("tls")
        try FileManager.default.createDirectory(at: tls, withIntermediateDirectories: true)
        let (ca, leaf, key) = try Self.tlsCertificates()
        self.ca = ca
        try (leaf.pem + ca.pem).write(to: tls.appendingPathComponent("tls.pem"), atomically: true, encoding: .utf8)
        try key.pkcs8PEM().write(to: tls.appendingPathComponent("tls.key.pem"), atomically: true, encoding: .utf8)
        let ready = tls.appendingPathComponent("ready.json")
        process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/python3")
        process.arguments = [
            LoopbackVerifier.repository.appendingPathComponent("Tests/Support/status_list_server.py").path,
            "--dir", directory.path, "--cert", tls.appendingPathComponent("tls.pem").path,
            "--key", tls.appendingPathComponent("tls.key.pem").path, "--ready-file", ready.path, "--lifetime", "120",
        ]
        process.standardOutput = FileHandle.nullDevice
        process.standardInput = FileHandle.nullDevice
        try process.run()
        guard let port = try await readyObject(at: ready, of: process, seconds: 20)?["port"]?.intValue else {
            if process.isRunning { process.terminate() }
            throw LoopbackVerifierError("the status list server did not start")
        }
        self.port = port
    }

    /// Serves `bytes` as `name`; returns its URL.
    @discardableResult
    func serve(_ bytes: [UInt8], as name: String) throws -> String {
        try Data(bytes).write(to: directory.appendingPathComponent(name))
        return base + "/" + name
    }

    /// How many requests reached the server so far.
    var requestCount: Int {
        let log = (try? String(contentsOf: directory.appendingPathComponent("requests.log"), encoding: .utf8)) ?? ""
        return log.split(separator: "\n").count
    }

    func stop() async {
        if process.isRunning {
            process.terminate()
            let deadline = Date().addingTimeInterval(2)
            while process.isRunning && Date() < deadline { try? await Task.sleep(for: .milliseconds(10)) }
            if process.isRunning { kill(process.processIdentifier, SIGKILL) }
            process.waitUntilExit()
        }
        try? FileManager.default.removeItem(at: directory)
    }

    static func with<T>(_ body: (StatusListServer) async throws -> T) async throws -> T {
        let server = try await StatusListServer()
        do {
            let value = try await body(server)
            await server.stop()
            return value
        } catch {
            await server.stop()
            throw error
        }
    }

    /// A CA, and a TLS server certificate for localhost issued by it.
    private static func tlsCertificates() throws -> (Certificate, Certificate, PrivateKey) {
        let caKey = try PrivateKey.generate(.p256)
        let key = try PrivateKey.generate(.p256)
        let start = Date().addingTimeInterval(-3600)
        let end = Date().addingTimeInterval(86_400)
        var builder = CertificateBuilder(
            subject: DistinguishedName(commonName: "Status List Test TLS CA"), subjectPublicKey: caKey.publicKey,
            notBefore: start, notAfter: end)
        builder.basicConstraints = .certificateAuthority(pathLength: 0)
        builder.keyUsage = [.keyCertSign, .cRLSign]
        let ca = try builder.selfSigned(with: caKey)
        builder = CertificateBuilder(
            subject: DistinguishedName(commonName: "localhost"), subjectPublicKey: key.publicKey, notBefore: start,
            notAfter: end)
        builder.basicConstraints = .endEntity
        builder.keyUsage = .digitalSignature
        builder.extendedKeyUsage = ["1.3.6.1.5.5.7.3.1"]
        builder.subjectAlternativeNames = [.dns("localhost")]
        return (ca, try builder.issued(by: ca, issuerKey: caKey), key)
    }
}

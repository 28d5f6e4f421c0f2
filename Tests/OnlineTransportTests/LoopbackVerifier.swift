import ConsentPolicy
import Foundation
import JOSE
import MdocCrypto
import OAuthWeb
import OnlineTransport
import OpenID4VP
import SecureArea
import Testing
import Wallet

/// Why the loopback verifier could not be used.
struct LoopbackVerifierError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}

/// The independent test verifier (Tests/Support/oid4vp_verifier.py) running on 127.0.0.1
/// under the test venv's Python, with its own CA. One per test; ``stop()`` ends it.
final class LoopbackVerifier: @unchecked Sendable {
    // Set once in init, read afterwards; the process is only terminated by stop().
    static let repository = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent()

    let process: Process
    let directory: URL
    let port: Int
    /// The verifier's CA: TLS server certificate and request signing certificate chain to it.
    let ca: Certificate
    let caPath: String
    let fetcher: HTTPFetcher

    var base: String { "https://localhost:\(port)" }

    /// Starts the verifier and waits (at most 30 s) until it listens.
    init() async throws {
        let python = Self.repository.appendingPathComponent(".venv-test/bin/python3").path
        guard FileManager.default.isExecutableFile(atPath: python) else {
            throw LoopbackVerifierError(
                "the test venv is missing (\(python)): run `make test-deps` (it installs the Python peers of Tests/Support/requirements.txt)"
            )
        }
        directory = FileManager.default.temporaryDirectory.appendingPathComponent(
            "oid4vp-verifier-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let ready = directory.appendingPathComponent("ready.json")
        let log = directory.appendingPathComponent("verifier.log")
        _ = FileManager.default.createFile(atPath: log.path, contents: nil)
        let logHandle = try FileHandle(forWritingTo: log)
        process = Process()
        process.executableURL = URL(fileURLWithPath: python)
        process.arguments = [
            Self.repository.appendingPathComponent("Tests/Support/oid4vp_verifier.py").path,
            "--dir", directory.path,
            "--iaca", Self.repository.appendingPathComponent("Fixtures/pki/iaca.pem").path,
            "--ready-file", ready.path,
            "--lifetime", "180",
        ]
        process.standardOutput = logHandle
        process.standardError = logHandle
        process.standardInput = FileHandle.nullDevice
        try process.run()
        try? logHandle.close()

        let info = try await readyObject(at: ready, of: process, seconds: 30)
        guard let info, let port = info["port"]?.intValue, let caPath = info["ca"]?.stringValue else {
            let text = (try? String(contentsOf: log, encoding: .utf8)) ?? ""
            if process.isRunning { process.terminate() }
            throw LoopbackVerifierError("the test verifier did not start: \(text.suffix(2000))")
        }
        self.port = port
        self.caPath = caPath
        let pem = try String(contentsOfFile: caPath, encoding: .utf8)
        guard let ca = try Certificate.parsePEM(pem).first else { throw LoopbackVerifierError("no CA certificate") }
        self.ca = ca
        fetcher = try HTTPFetcher(
            additionalTrustRoots: [ca], limits: HTTPFetcher.Limits(requestTimeout: .seconds(20)))
    }

    /// Ends the verifier process and removes its files.
    func stop() async {
        if process.isRunning {
            process.terminate()
            let deadline = Date().addingTimeInterval(2)
            while process.isRunning && Date() < deadline { try? await Task.sleep(for: .milliseconds(10)) }
            // SIGTERM may arrive blocked (a spawned child inherits the signal mask); SIGKILL cannot.
            if process.isRunning { kill(process.processIdentifier, SIGKILL) }
            process.waitUntilExit()
        }
        try? FileManager.default.removeItem(at: directory)
    }

    /// A new request: the URL a QR code would carry, and the session to read the result of.
    func start(
        kind: String = "signed", delivery: String = "post", mode: String = "direct_post", variant: String = "none",
        enc: [String] = []
    ) async throws -> (session: String, url: String) {
        var fields = [("kind", kind), ("delivery", delivery), ("mode", mode), ("variant", variant)]
        if !enc.isEmpty { fields.append(("enc", enc.joined(separator: ","))) }
        let form = FormEncoding.encode(fields)
        let response = try await fetcher.postForm(base + "/start", form: form)
        guard response.status == 200, let json = try? JSONValue(parsing: response.body),
            let session = json["session"]?.stringValue, let url = json["url"]?.stringValue
        else { throw LoopbackVerifierError("/start answered HTTP \(response.status)") }
        return (session, url)
    }

    /// What the verifier saw for `session`.
    func result(_ session: String) async throws -> JSONValue {
        let response = try await fetcher.get(base + "/result/" + session, accept: "application/json")
        guard response.status == 200 else { throw LoopbackVerifierError("/result answered HTTP \(response.status)") }
        return try JSONValue(parsing: response.body)
    }

    /// Runs `body` with a started verifier, and stops it whatever happens.
    static func with<T>(_ body: (LoopbackVerifier) async throws -> T) async throws -> T {
        let verifier = try await LoopbackVerifier()
        do {
            let value = try await body(verifier)
            await verifier.stop()
            return value
        } catch {
            await verifier.stop()
            throw error
        }
    }
}

/// A temporary credential store holding the committed test mDL (Fixtures/mdl.cbor).
struct TestStore {
    let directory: URL
    let store: CredentialStore

    init() throws {
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("oid4vp-store-\(UUID().uuidString)")
        store = try CredentialStore(
            path: directory.appendingPathComponent("wallet.sqlite").path, secureAreas: .inMemory)
        let fixtures = LoopbackVerifier.repository.appendingPathComponent("Fixtures")
        let mdl = try [UInt8](Data(contentsOf: fixtures.appendingPathComponent("mdl.cbor")))
        let key = try String(contentsOf: fixtures.appendingPathComponent("mdl-device-key.pem"), encoding: .utf8)
        let iaca = try Certificate.parsePEM(
            String(contentsOf: fixtures.appendingPathComponent("pki/iaca.pem"), encoding: .utf8))
        _ = try store.import(fileBytes: mdl, deviceKeyPEM: key, trustAnchors: iaca)
    }

    func remove() { try? FileManager.default.removeItem(at: directory) }
}

/// Kiosk policies for the tests.
enum TestPolicy {
    static let mDL = "org.iso.18013.5.1.mDL"
    static let ns = "org.iso.18013.5.1"

    /// Any verifier may have every requested mDL element.
    static var allowAll: PolicyConsent {
        get throws {
            try PolicyConsent(
                text: """
                    [[rule]]
                    reader = "any"
                    doctype = "\(mDL)"
                    allow = ["*"]
                    """, baseDirectory: FileManager.default.temporaryDirectory)
        }
    }

    /// No rules: everything is declined.
    static var declineAll: PolicyConsent {
        get throws { try PolicyConsent(text: "# no rules: decline\n", baseDirectory: URL(fileURLWithPath: "/")) }
    }
}

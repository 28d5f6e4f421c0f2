import Foundation
import Testing

/// `mdoc-holder present-online` end to end: the built binary, a store made by its own
/// `credentials import`, a kiosk policy file, the verifier's CA given with --tls-ca and
/// --verifier-trust from a file, the exit statuses.
@Suite(.serialized, .timeLimit(.minutes(2)))
struct PresentOnlineCLITests {
    /// The output of one command.
    struct Run {
        var status: Int32
        var stdout: String
        var stderr: String
    }

    /// The `mdoc-holder` binary next to the test bundle (`swift build` makes it).
    static var binary: URL {
        get throws {
            let candidates = [
                URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent(),
                Bundle.main.bundleURL.deletingLastPathComponent(), Bundle.main.bundleURL,
            ].map { $0.appendingPathComponent("mdoc-holder") }
            guard let binary = candidates.first(where: { FileManager.default.isExecutableFile(atPath: $0.path) }) else {
                throw LoopbackVerifierError(
                    "the mdoc-holder binary is not built next to the tests (run `swift build` first; `make test` does)")
            }
            return binary
        }
    }

    /// Runs `mdoc-holder arguments` with no terminal and a 60 s limit.
    static func mdocHolder(_ arguments: [String]) async throws -> Run {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("cli-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let out = directory.appendingPathComponent("stdout")
        let err = directory.appendingPathComponent("stderr")
        _ = FileManager.default.createFile(atPath: out.path, contents: nil)
        _ = FileManager.default.createFile(atPath: err.path, contents: nil)
        let process = Process()
        process.executableURL = try binary
        process.arguments = arguments
        process.standardInput = FileHandle.nullDevice
        process.standardOutput = try FileHandle(forWritingTo: out)
        process.standardError = try FileHandle(forWritingTo: err)
        try process.run()
        let deadline = Date().addingTimeInterval(60)
        while process.isRunning && Date() < deadline { try await Task.sleep(for: .milliseconds(20)) }
        if process.isRunning {
            kill(process.processIdentifier, SIGKILL)
            process.waitUntilExit()
            throw LoopbackVerifierError("mdoc-holder \(arguments.first ?? "") did not finish within 60 s")
        }
        process.waitUntilExit()
        return Run(
            status: process.terminationStatus, stdout: try String(contentsOf: out, encoding: .utf8),
            stderr: try String(contentsOf: err, encoding: .utf8))
    }

    /// A store with the test mDL imported by the CLI, and a policy file; removed afterwards.
    static func withWallet(policy: String, _ body: (_ store: String, _ policy: String) async throws -> Void)
        async throws
    {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("cli-wallet-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let store = directory.appendingPathComponent("wallet.sqlite").path
        let fixtures = LoopbackVerifier.repository.appendingPathComponent("Fixtures")
        let imported = try await mdocHolder([
            "credentials", "import", fixtures.appendingPathComponent("mdl.cbor").path,
            "--device-key", fixtures.appendingPathComponent("mdl-device-key.pem").path,
            "--trust-anchor", fixtures.appendingPathComponent("pki/iaca.pem").path, "--store", store,
        ])
        #expect(imported.status == 0, "\(imported.stderr)")
        let policyPath = directory.appendingPathComponent("policy.toml").path
        try policy.write(toFile: policyPath, atomically: true, encoding: .utf8)
        try await body(store, policyPath)
    }

    static let trustedPolicy = """
        [[rule]]
        reader = "trusted"
        doctype = "org.iso.18013.5.1.mDL"
        allow = ["org.iso.18013.5.1:family_name", "org.iso.18013.5.1:given_name", "org.iso.18013.5.1:age_over_18"]
        """

    @Test("present-online with --tls-ca: sent, redirect_uri printed, exit 0, history written")
    func sent() async throws {
        try await LoopbackVerifier.with { verifier in
            try await Self.withWallet(policy: Self.trustedPolicy) { store, policy in
                let (session, url) = try await verifier.start(kind: "signed", delivery: "post", mode: "direct_post.jwt")
                let run = try await Self.mdocHolder([
                    "present-online", url, "--consent", "policy:\(policy)", "--verifier-trust", verifier.caPath,
                    "--tls-ca", verifier.caPath, "--store", store,
                ])
                #expect(run.status == 0, "\(run.stderr)")
                #expect(run.stdout.contains("Request from OID4VP Test Verifier (x509_san_dns:localhost)"))
                #expect(run.stdout.contains("trusted by CN=OID4VP Test Verifier CA"))
                #expect(run.stdout.contains("redirect_uri: \(verifier.base)/done?session=\(session)"))
                // Element identifiers only, never values.
                #expect(!run.stdout.contains("Jane"))
                let result = try await verifier.result(session)
                #expect(result["verified"] == true)
                let history = try await Self.mdocHolder(["history", "--json", "--store", store])
                #expect(history.stdout.contains("\"decision\" : \"sent\""))
                #expect(history.stdout.contains("\"channel\" : \"online\""))
            }
        }
    }

    @Test(
        "present-online --verifiers: a pre-registered verifier's signed request is answered; without the file it is refused"
    )
    func preRegistered() async throws {
        try await LoopbackVerifier.with { verifier in
            try await Self.withWallet(policy: Self.trustedPolicy) { store, policy in
                let verifiers = URL(fileURLWithPath: verifier.caPath).deletingLastPathComponent()
                    .appendingPathComponent("verifiers.toml").path
                let (session, url) = try await verifier.start(kind: "preregistered", delivery: "post")
                let run = try await Self.mdocHolder([
                    "present-online", url, "--consent", "policy:\(policy)", "--verifiers", verifiers, "--tls-ca",
                    verifier.caPath, "--store", store,
                ])
                #expect(run.status == 0, "\(run.stderr)")
                #expect(run.stdout.contains("Request from Pre-registered Test Verifier (verifier.localhost)"))
                #expect(run.stdout.contains("trusted by registered key of Pre-registered Test Verifier"))
                #expect(try await verifier.result(session)["verified"] == true)

                // The same kind of request from a client_id the wallet does not know.
                let (unknown, unknownURL) = try await verifier.start(kind: "preregistered", delivery: "get")
                let refused = try await Self.mdocHolder([
                    "present-online", unknownURL, "--consent", "policy:\(policy)", "--tls-ca", verifier.caPath,
                    "--store", store,
                ])
                #expect(refused.status == 1)
                #expect(refused.stdout.contains("Refused: invalid_request: the client_id is not a known verifier"))
                #expect(try await verifier.result(unknown)["received"] == false)
            }
        }
    }

    @Test("present-online --verifiers with a bad file: exit 2, the line named")
    func badVerifiersFile() async throws {
        try await Self.withWallet(policy: "# no rules\n") { store, policy in
            let file = FileManager.default.temporaryDirectory.appendingPathComponent("verifiers-\(UUID().uuidString)")
            try "[[verifier]]\nclient_id = \"x509_san_dns:a.example\"\nresponse_uris = [\"https://a.example/r\"]\n"
                .write(to: file, atomically: true, encoding: .utf8)
            defer { try? FileManager.default.removeItem(at: file) }
            let run = try await Self.mdocHolder([
                "present-online", "openid4vp://?client_id=x", "--consent", "policy:\(policy)", "--verifiers", file.path,
                "--store", store,
            ])
            #expect(run.status == 2)
            #expect(run.stderr.contains("verifier at line 2: client_id has the prefix x509_san_dns"))
        }
    }

    @Test("present-online without the verifier's CA: TLS refused, exit 1")
    func withoutTLSCA() async throws {
        try await LoopbackVerifier.with { verifier in
            try await Self.withWallet(policy: Self.trustedPolicy) { store, policy in
                let (session, url) = try await verifier.start(kind: "signed", delivery: "get")
                let run = try await Self.mdocHolder([
                    "present-online", url, "--consent", "policy:\(policy)", "--verifier-trust", verifier.caPath,
                    "--store", store,
                ])
                #expect(run.status == 1)
                #expect(run.stderr.contains("TLS with localhost failed"))
                #expect(try await verifier.result(session)["request_fetches"]?.arrayValue?.isEmpty == true)
            }
        }
    }

    @Test("present-online: a decline exits 1 and says the verifier was told")
    func declined() async throws {
        try await LoopbackVerifier.with { verifier in
            try await Self.withWallet(policy: "# no rules\n") { store, policy in
                let (session, url) = try await verifier.start(kind: "unsigned", mode: "direct_post")
                let run = try await Self.mdocHolder([
                    "present-online", url, "--consent", "policy:\(policy)", "--tls-ca", verifier.caPath, "--store",
                    store,
                ])
                #expect(run.status == 1)
                #expect(run.stdout.contains("unsigned request; not authenticated"))
                #expect(run.stdout.contains("Declined: the verifier was told (access_denied)."))
                #expect(try await verifier.result(session)["error"] == "access_denied")
            }
        }
    }

    @Test("present-online: bad input exits 2")
    func badInput() async throws {
        try await Self.withWallet(policy: "# no rules\n") { store, policy in
            let notARequest = try await Self.mdocHolder([
                "present-online", "mdoc:owBjMS4w", "--consent", "policy:\(policy)", "--store", store,
            ])
            #expect(notARequest.status == 2)
            #expect(notARequest.stderr.contains("not an OpenID4VP request"))
            let badConsent = try await Self.mdocHolder([
                "present-online", "openid4vp://?client_id=x", "--consent", "maybe", "--store", store,
            ])
            #expect(badConsent.status == 2)
            let unreadableCA = try await Self.mdocHolder([
                "present-online", "openid4vp://?client_id=x", "--consent", "policy:\(policy)", "--tls-ca",
                "/nonexistent/ca.pem", "--store", store,
            ])
            #expect(unreadableCA.status == 2)
            #expect(unreadableCA.stderr.contains("/nonexistent/ca.pem"))
        }
    }
}

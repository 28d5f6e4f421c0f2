import ConsentPolicy
import Foundation
import JOSE
import MdocCrypto
import OpenID4VP
import Testing

/// The pre-registered verifiers file: what it accepts, and that every mistake is refused
/// with its line rather than silently widening whom the wallet trusts.
struct PreRegisteredVerifierFileTests {
    /// A directory with a public JWK and a CA certificate, removed afterwards.
    static func withDirectory(_ body: (URL, PrivateKey) throws -> Void) throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("verifiers-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        let key = try PrivateKey.generate(.p256)
        try JWK(publicKey: key.publicKey).json().serializedString.write(
            to: dir.appendingPathComponent("public.jwk"), atomically: true, encoding: .utf8)
        try JWK(privateKey: key).json(includingPrivateKey: true).serializedString.write(
            to: dir.appendingPathComponent("private.jwk"), atomically: true, encoding: .utf8)
        try body(dir, key)
    }

    @Test func readsVerifiersWithKeysAndWithout() throws {
        try Self.withDirectory { dir, key in
            let verifiers = try PreRegisteredVerifierFile.parse(
                """
                # Two verifiers known in advance.
                [[verifier]]
                client_id = "verifier.example.org"
                name = "Example Verifier"
                response_uris = ["https://verifier.example.org/response", "https://verifier.example.org/r2"]
                jwk = "public.jwk"

                [[verifier]]
                client_id = "https://unsigned.example.org"
                response_uris = ['https://unsigned.example.org/cb']
                """, baseDirectory: dir)
            #expect(verifiers.count == 2)
            #expect(verifiers[0].clientID == "verifier.example.org")
            #expect(verifiers[0].name == "Example Verifier")
            #expect(verifiers[0].responseURIs.count == 2)
            #expect(try verifiers[0].publicKey?.publicKey() == key.publicKey)
            #expect(verifiers[0].requiresSignedRequests)
            #expect(verifiers[1].name == "https://unsigned.example.org")
            #expect(!verifiers[1].requiresSignedRequests)
        }
    }

    @Test(arguments: [
        ("[[verifier]]\nresponse_uris = [\"https://a.example/r\"]\n", "line 1: missing client_id"),
        ("[[verifier]]\nclient_id = \"a\"\n", "line 1: missing response_uris"),
        (
            "[[verifier]]\nclient_id = \"x509_hash:abc\"\nresponse_uris = [\"https://a/r\"]\n",
            "line 2: client_id has the prefix x509_hash"
        ),
        ("[[verifier]]\nclient_id = \"a\"\nresponse_uris = [\"http://a/r\"]\n", "line 3: response_uris must be https"),
        ("[[verifier]]\nclient_id = \"a\"\nresponse_uris = [\"https://a/r\"]\njwk = \"private.jwk\"\n", "line 4: /"),
        (
            "[[verifier]]\nclient_id = \"a\"\nresponse_uris = [\"https://a/r\"]\njwk = \"missing.jwk\"\n",
            "cannot read the JWK file"
        ),
        (
            "[[verifier]]\nclient_id = \"a\"\nresponse_uris = [\"https://a/r\"]\ntrust_anchors = [\"public.jwk\"]\n",
            "holds no readable PEM"
        ),
        (
            "[[verifier]]\nclient_id = \"a\"\nresponse_uris = [\"https://a/r\"]\nallow_all = \"yes\"\n",
            "line 4: unknown key allow_all"
        ),
        ("[[verifier]]\nclient_id = \"a\"\nresponse_uris = \"https://a/r\"\n", "must be an array of strings"),
        ("[[rule]]\n", "line 1: unknown table [[rule]]"),
        (
            "[[verifier]]\nclient_id = \"a\"\nresponse_uris = [\"https://a/r\"]\n[[verifier]]\nclient_id = \"a\"\nresponse_uris = [\"https://a/r\"]\n",
            "line 4: client_id a is registered twice"
        ),
    ])
    func refusesMistakesWithTheLine(text: String, expected: String) throws {
        try Self.withDirectory { dir, _ in
            do {
                _ = try PreRegisteredVerifierFile.parse(text, baseDirectory: dir)
                Issue.record("accepted: \(text)")
            } catch {
                #expect("\(error)".contains(expected), "\(error)")
            }
        }
    }

    @Test func privateKeyFileIsRefusedAsSuch() throws {
        try Self.withDirectory { dir, _ in
            let text = "[[verifier]]\nclient_id = \"a\"\nresponse_uris = [\"https://a/r\"]\njwk = \"private.jwk\"\n"
            #expect {
                _ = try PreRegisteredVerifierFile.parse(text, baseDirectory: dir)
            } throws: { error in
                "\(error)".contains("holds a private key: register the verifier's public key only")
            }
        }
    }

    @Test func unreadableFileIsNamed() {
        #expect(throws: PreRegisteredVerifierFileError.self) {
            _ = try PreRegisteredVerifierFile.load(path: "/nonexistent/verifiers.toml")
        }
    }
}

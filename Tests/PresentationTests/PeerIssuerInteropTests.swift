import Consent
import Foundation
import ISO18013
import MdocCrypto
import Presentation
import SecureArea
import TestSupport
import Testing
import Wallet

/// A credential issued by pymdoccbor (an independent implementation, installed in the test
/// venv by `make test-deps`) imports into the store and is presented; a byte-modified copy is
/// refused at import.
struct PeerIssuerInteropTests {
    static let repo = Vectors.fixtures.deletingLastPathComponent()

    /// Runs Tests/Support/pymdoccbor_issue.py into a fresh directory.
    static func issueWithPymdoccbor() throws -> URL {
        let python = repo.appendingPathComponent(".venv-test/bin/python3")
        guard FileManager.default.isExecutableFile(atPath: python.path) else {
            throw InteropSetupError("no test venv at \(python.path): run `make test-deps` (it installs pymdoccbor)")
        }
        let out = URL(fileURLWithPath: NSTemporaryDirectory()).appendingPathComponent("pymdoccbor-\(UUID().uuidString)")
        let p = Process()
        p.executableURL = python
        p.arguments = [repo.appendingPathComponent("Tests/Support/pymdoccbor_issue.py").path, out.path]
        let err = Pipe()
        p.standardError = err
        p.standardOutput = Pipe()
        try p.run()
        p.waitUntilExit()
        guard p.terminationStatus == 0 else {
            let text = String(decoding: err.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
            throw InteropSetupError("pymdoccbor_issue.py failed: \(text)")
        }
        return out
    }

    @Test func aPymdoccborCredentialImportsAndIsPresented() throws {
        let dir = try Self.issueWithPymdoccbor()
        defer { try? FileManager.default.removeItem(at: dir) }
        let iaca = try Certificate.parsePEM(String(contentsOf: dir.appendingPathComponent("iaca.pem"), encoding: .utf8))
        let store = try CredentialStore(path: dir.appendingPathComponent("wallet.sqlite").path, secureAreas: .inMemory)
        let ids = try store.import(
            fileBytes: [UInt8](Data(contentsOf: dir.appendingPathComponent("mdoc.cbor"))),
            deviceKeyPEM: String(contentsOf: dir.appendingPathComponent("device-key.pem"), encoding: .utf8),
            trustAnchors: iaca)
        #expect(ids.count == 1)
        let credentials = try store.presentableCredentials()
        #expect(credentials.map(\.docType) == ["org.iso.18013.5.1.mDL"])

        var x = try InMemoryExchange(credentials: credentials, iacas: iaca, time: Date())
        let response = try #require(
            try x.request([
                ItemsRequest(
                    docType: "org.iso.18013.5.1.mDL",
                    nameSpaces: [
                        .init("org.iso.18013.5.1", [.init("family_name"), .init("age_over_18"), .init("portrait")])
                    ])
            ])?.verified)
        #expect(response.isValid, "\(response.documents.flatMap(\.failures))")
        #expect(Set(response.documents[0].elements.map(\.id.identifier)) == ["family_name", "age_over_18", "portrait"])
        try store.record(x.records, channel: .ble)
        let history = try store.history()
        #expect(history.count == 1)
        #expect(history[0].decision == .sent)
        #expect(history[0].elementsSent.count == 3)
    }

    @Test func aByteModifiedPymdoccborCredentialIsRefused() throws {
        let dir = try Self.issueWithPymdoccbor()
        defer { try? FileManager.default.removeItem(at: dir) }
        var bytes = [UInt8](try Data(contentsOf: dir.appendingPathComponent("mdoc.cbor")))
        let name = Array("Mustermann".utf8)
        let at = try #require((0...(bytes.count - name.count)).first { Array(bytes[$0..<($0 + name.count)]) == name })
        bytes[at] = UInt8(ascii: "N")
        let iaca = try Certificate.parsePEM(String(contentsOf: dir.appendingPathComponent("iaca.pem"), encoding: .utf8))
        let store = try CredentialStore(path: dir.appendingPathComponent("wallet.sqlite").path, secureAreas: .inMemory)
        #expect(throws: WalletError.self) {
            try store.import(
                fileBytes: bytes,
                deviceKeyPEM: String(contentsOf: dir.appendingPathComponent("device-key.pem"), encoding: .utf8),
                trustAnchors: iaca)
        }
        #expect(try store.list().isEmpty)
    }
}

struct InteropSetupError: Error, CustomStringConvertible {
    let description: String
    init(_ d: String) { description = d }
}

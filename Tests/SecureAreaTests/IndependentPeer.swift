import Foundation
import MdocCrypto
import TestSupport

/// Python `cryptography` in the test venv (Tests/Support/secure_area_peer.py): checks our
/// signatures and computes ECDH from its side.
enum IndependentPeer {
    static let repository = Vectors.fixtures.deletingLastPathComponent()

    struct SetupError: Error, CustomStringConvertible {
        var description: String
    }

    private static func run(_ arguments: [String]) throws -> (status: Int32, output: String) {
        let python = repository.appendingPathComponent(".venv-test/bin/python3")
        guard FileManager.default.isExecutableFile(atPath: python.path) else {
            throw SetupError(description: "no test venv at \(python.path): run `make test-deps`")
        }
        let process = Process()
        process.executableURL = python
        process.arguments = [repository.appendingPathComponent("Tests/Support/secure_area_peer.py").path] + arguments
        let output = Pipe()
        process.standardOutput = output
        process.standardError = FileHandle.standardError
        try process.run()
        let data = output.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return (process.terminationStatus, String(decoding: data, as: UTF8.self))
    }

    /// Whether Python accepts `signature` over `message` with `publicKey`.
    static func verifies(
        _ signature: [UInt8], over message: [UInt8], publicKey: PublicKey, algorithm: SignatureAlgorithm
    ) throws -> Bool {
        let name: String
        switch algorithm {
        case .es256: name = "ES256"
        case .es384: name = "ES384"
        case .es512: name = "ES512"
        case .edDSA: name = "EdDSA"
        }
        let result = try run(["verify", hex(publicKey.subjectPublicKeyInfoDER), name, hex(message), hex(signature)])
        return result.status == 0
    }

    /// A fresh Python key's public key and the secret Python computed with `publicKey`.
    static func ecdh(with publicKey: PublicKey) throws -> (peer: PublicKey, sharedSecret: [UInt8]) {
        let result = try run(["ecdh", hex(publicKey.subjectPublicKeyInfoDER)])
        let lines = result.output.split(separator: "\n").map(String.init)
        guard result.status == 0, lines.count == 2, let spki = bytes(lines[0]), let secret = bytes(lines[1]) else {
            throw SetupError(description: "secure_area_peer.py ecdh failed")
        }
        return (try PublicKey(subjectPublicKeyInfoDER: spki), secret)
    }

    static func hex(_ bytes: [UInt8]) -> String { bytes.map { String(format: "%02x", $0) }.joined() }

    static func bytes(_ hex: String) -> [UInt8]? {
        let digits = Array(hex.utf8)
        guard digits.count % 2 == 0 else { return nil }
        var out: [UInt8] = []
        var i = 0
        while i < digits.count {
            guard let byte = UInt8(String(decoding: digits[i..<(i + 2)], as: UTF8.self), radix: 16) else { return nil }
            out.append(byte)
            i += 2
        }
        return out
    }
}

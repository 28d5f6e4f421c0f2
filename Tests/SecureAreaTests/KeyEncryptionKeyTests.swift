import Foundation
import SecureArea
import Testing

/// Where the software area's key-encryption key comes from, and how it is made and read.
struct KeyEncryptionKeyTests {
    let directory = NSTemporaryDirectory() + "kek-tests-\(UUID().uuidString)"

    @Test func anExplicitFileWinsThenSystemdThenTheUsersConfigurationDirectory() {
        #expect(
            KeyEncryptionKeySource.resolve(kekFile: "/k", environment: ["CREDENTIALS_DIRECTORY": "/run/c"]).location
                == "/k")
        #expect(
            KeyEncryptionKeySource.resolve(kekFile: nil, environment: ["CREDENTIALS_DIRECTORY": "/run/c"]).location
                == "/run/c/mdoc-holder-kek")
        #expect(
            KeyEncryptionKeySource.resolve(kekFile: nil, environment: ["XDG_CONFIG_HOME": "/x", "HOME": "/h"]).location
                == "/x/mdoc-holder/kek")
        #expect(
            KeyEncryptionKeySource.resolve(kekFile: nil, environment: ["HOME": "/h"]).location
                == "/h/.config/mdoc-holder/kek")
    }

    @Test func theUsersKEKIsMadeOnFirstUse0600AndReadBackTheSame() throws {
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let source = KeyEncryptionKeySource.userConfiguration(path: directory + "/mdoc-holder/kek")
        #expect(throws: SecureAreaError.self) { _ = try source.load(create: false) }
        let area = SoftwareSecureArea(source: source)
        let key = try area.createKey(KeySettings())
        let attributes = try FileManager.default.attributesOfItem(atPath: source.location)
        #expect(attributes[.posixPermissions] as? Int == 0o600)
        let text = try String(contentsOfFile: source.location, encoding: .utf8)
        #expect(text.count == 65 && text.hasSuffix("\n"))
        // A new instance (a restarted program) reads the same key.
        _ = try SoftwareSecureArea(source: .file(path: source.location)).sign(
            [1, 2, 3], algorithm: .es256, key: key, passphrase: nil)
    }

    @Test func aFileOfThirtyTwoRawBytesIsAKEKAndOtherContentsAreRefused() throws {
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let raw = directory + "/raw"
        try Data((0..<32).map { UInt8($0) }).write(to: URL(fileURLWithPath: raw))
        _ = try KeyEncryptionKeySource.file(path: raw).load(create: false)
        let short = directory + "/short"
        try Data("abcd\n".utf8).write(to: URL(fileURLWithPath: short))
        #expect {
            _ = try KeyEncryptionKeySource.file(path: short).load(create: false)
        } throws: { error in
            guard case .keyEncryptionKeyUnusable(let location, _) = error as? SecureAreaError else { return false }
            return location == short
        }
    }

    @Test func theUnitsPlaceholderCredentialCountsAsMissing() throws {
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        try Data("unprovisioned".utf8).write(to: URL(fileURLWithPath: directory + "/mdoc-holder-kek"))
        #expect {
            _ = try KeyEncryptionKeySource.systemdCredential(directory: directory).load(create: true)
        } throws: { error in
            guard case .keyEncryptionKeyMissing(_, let remedy) = error as? SecureAreaError else { return false }
            return remedy.contains("systemd-creds encrypt")
        }
    }
}

/// A key-encryption key file protected by a passphrase (scrypt through OpenSSL).
struct ProtectedKeyEncryptionKeyTests {
    @Test func aPassphraseProtectedKEKOpensWithItsPassphraseOnly() throws {
        let directory = NSTemporaryDirectory() + "kek-protected-\(UUID().uuidString)"
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let path = directory + "/kek"
        let key = try SoftwareSecureArea(source: .userConfiguration(path: path), kekPassphrase: "correct horse")
            .createKey(KeySettings())
        let text = try String(contentsOfFile: path, encoding: .utf8)
        #expect(text.hasPrefix("mdoc-holder-kek-v1 scrypt 15 "))
        // The same key reopens with the passphrase, from a new instance.
        _ = try SoftwareSecureArea(source: .file(path: path), kekPassphrase: "correct horse").sign(
            [1], algorithm: .es256, key: key, passphrase: nil)
        #expect(throws: SecureAreaError.keyEncryptionKeyPassphraseRequired(location: path)) {
            _ = try SoftwareSecureArea(source: .file(path: path)).sign(
                [1], algorithm: .es256, key: key, passphrase: nil)
        }
        #expect(throws: SecureAreaError.wrongKeyEncryptionKeyPassphrase(location: path)) {
            _ = try SoftwareSecureArea(source: .file(path: path), kekPassphrase: "battery staple").sign(
                [1], algorithm: .es256, key: key, passphrase: nil)
        }
    }
}

import BoundedFile
import FoundationEssentials
import MdocCrypto
import PrintableText

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

/// The software area's key-encryption key (KEK): 32 random bytes that never enter the store or
/// its directory. `description` says where it came from, never its bytes.
public struct KeyEncryptionKey: Sendable, CustomStringConvertible {
    /// 32 bytes.
    let secret: SecretBytes
    /// Where it was read from (for messages).
    public let location: String

    /// A KEK from its 32 bytes (tests, or a caller that has it elsewhere).
    public init(secret: SecretBytes, location: String) throws(SecureAreaError) {
        guard secret.count == 32 else {
            throw .keyEncryptionKeyUnusable(location: location, reason: "it holds \(secret.count) bytes, not 32")
        }
        self.secret = secret
        self.location = location
        self.derived = KEKDerivations(secret)
    }

    /// A fresh random KEK kept in memory only (tests).
    public static func ephemeral() -> KeyEncryptionKey {
        // 32 bytes always pass the check.
        try! KeyEncryptionKey(secret: SecretBytes(SecureRandom.bytes(32)), location: "(in memory)")
    }

    private let derived: KEKDerivations

    /// 8 bytes that name this KEK in every blob it wraps (an HMAC, revealing nothing of it), so a
    /// blob under another KEK is told apart from a wrong passphrase. Computed once, on first use.
    var fingerprint: [UInt8] { derived.values.fingerprint }
    /// The AEAD key of the keys wrapped without a passphrase (``SoftwareKeyBlob``), derived once
    /// on first use: it is as secret as the KEK and lives as long.
    var wrappingKey: SecretBytes { derived.values.wrappingKey }

    public var description: String { "KeyEncryptionKey(\(location))" }

    /// The file contents: 64 hex digits (what `create` writes), or 32 raw bytes.
    static func parse(_ bytes: [UInt8], location: String) throws(SecureAreaError) -> KeyEncryptionKey {
        var content = bytes
        defer { for i in content.indices { content[i] = 0 } }
        let text = content.filter { !($0 == 0x20 || $0 == 0x0A || $0 == 0x0D || $0 == 0x09) }
        if text.count == 64, let raw = Self.hex(text) {
            return try KeyEncryptionKey(secret: SecretBytes(raw), location: location)
        }
        if content.count == 32 { return try KeyEncryptionKey(secret: SecretBytes(content), location: location) }
        throw .keyEncryptionKeyUnusable(
            location: location, reason: "it must hold 64 hex digits or 32 bytes (\(content.count) bytes found)")
    }

    private static func hex(_ digits: [UInt8]) -> [UInt8]? {
        func value(_ c: UInt8) -> UInt8? {
            switch c {
            case 0x30...0x39: return c - 0x30
            case 0x61...0x66: return c - 0x61 + 10
            case 0x41...0x46: return c - 0x41 + 10
            default: return nil
            }
        }
        var out: [UInt8] = []
        var i = 0
        while i + 1 < digits.count {
            guard let hi = value(digits[i]), let lo = value(digits[i + 1]) else { return nil }
            out.append(hi << 4 | lo)
            i += 2
        }
        return out
    }
}

/// Where the software area finds its key-encryption key.
public enum KeyEncryptionKeySource: Sendable, CustomStringConvertible {
    /// The systemd credential `mdoc-holder-kek` (`LoadCredentialEncrypted=`), in
    /// `$CREDENTIALS_DIRECTORY`. Never created by the program.
    case systemdCredential(directory: String)
    /// A file given with `--kek-file` (or `MDOC_HOLDER_KEK_FILE`). Never created by the program.
    case file(path: String)
    /// `$XDG_CONFIG_HOME/mdoc-holder/kek` (default `~/.config/...`), created 0600 (in a 0700
    /// directory) when a key is first wrapped; passphrase-protected when a KEK passphrase is
    /// given then.
    case userConfiguration(path: String)
    /// A KEK held in memory (tests).
    case given(KeyEncryptionKey)

    /// The systemd credential's name.
    public static let credentialName = "mdoc-holder-kek"
    /// What the unit's `SetCredential=` fallback holds until the credential is provisioned.
    static let unprovisioned = "unprovisioned"

    /// `--kek-file` when given; else the systemd credential when `CREDENTIALS_DIRECTORY` is set;
    /// else the user's configuration directory.
    public static func resolve(
        kekFile: String?, environment: [String: String] = ProcessInfo.processInfo.environment
    ) -> KeyEncryptionKeySource {
        if let kekFile = kekFile ?? environment["MDOC_HOLDER_KEK_FILE"], !kekFile.isEmpty {
            return .file(path: kekFile)
        }
        if let directory = environment["CREDENTIALS_DIRECTORY"], !directory.isEmpty {
            return .systemdCredential(directory: directory)
        }
        // A systemd service that loads no credential: the KEK is still expected from systemd.
        if environment["INVOCATION_ID"] != nil, environment["STATE_DIRECTORY"] != nil {
            return .systemdCredential(directory: "$CREDENTIALS_DIRECTORY")
        }
        let config: String
        if let xdg = environment["XDG_CONFIG_HOME"], xdg.hasPrefix("/") {
            config = xdg
        } else {
            let home =
                environment["HOME"].flatMap { $0.isEmpty ? nil : $0 }
                ?? FileManager.default.homeDirectoryForCurrentUser.path
            config = BoundedFile.path(home, ".config")
        }
        return .userConfiguration(path: BoundedFile.path(config, "mdoc-holder/kek"))
    }

    /// The path (or a description for an in-memory key).
    public var location: String {
        switch self {
        case .systemdCredential(let directory):
            return BoundedFile.path(directory, Self.credentialName)
        case .file(let path), .userConfiguration(let path): return path
        case .given(let kek): return kek.location
        }
    }

    /// What to do when the key is missing.
    var remedy: String {
        switch self {
        case .systemdCredential:
            return
                "provision it as /etc/credstore.encrypted/\(Self.credentialName) (systemd-creds encrypt --name=\(Self.credentialName) KEK /etc/credstore.encrypted/\(Self.credentialName)), which the unit loads with LoadCredentialEncrypted=, then restart the service; see docs/operator-guide.md"
        case .file:
            return "restore that file from your backup, or give the file the keys were made with (--kek-file)"
        case .userConfiguration:
            return
                "restore it from your backup, or give the file the keys were made with (--kek-file); without it the keys wrapped under it cannot be used"
        case .given: return "give the key-encryption key"
        }
    }

    public var description: String { location }

    /// Reads the KEK; with `create`, makes it first when this source may be created (the user's
    /// configuration directory) and it does not exist yet.
    ///
    /// - Parameter passphrase: opens a passphrase-protected KEK file (``ProtectedKEKFile``);
    ///   with `create`, the new file is protected with it.
    public func load(create: Bool, passphrase: String? = nil) throws(SecureAreaError) -> KeyEncryptionKey {
        if case .given(let kek) = self { return kek }
        let path = location
        if !FileManager.default.fileExists(atPath: path) {
            guard create, case .userConfiguration = self else {
                throw .keyEncryptionKeyMissing(location: path, remedy: remedy)
            }
            try Self.createFile(path, passphrase: passphrase)
        }
        guard let data = FileManager.default.contents(atPath: path) else {
            throw .keyEncryptionKeyUnusable(location: path, reason: "it cannot be read (permissions?)")
        }
        // The unit's SetCredential= placeholder: the credential was not provisioned.
        if case .systemdCredential = self,
            data.isEmpty
                || String(decoding: data, as: UTF8.self).trimmingWhitespace()
                    == Self.unprovisioned
        {
            throw .keyEncryptionKeyMissing(location: path, remedy: remedy)
        }
        if ProtectedKEKFile.isProtected([UInt8](data)) {
            return try ProtectedKEKFile.open([UInt8](data), passphrase: passphrase, location: path)
        }
        return try KeyEncryptionKey.parse([UInt8](data), location: path)
    }

    /// Writes 32 random bytes as hex to `path`, 0600, atomically: a file another process made
    /// meanwhile wins (both then read the same key).
    private static func createFile(_ path: String, passphrase: String?) throws(SecureAreaError) {
        let directory = BoundedFile.directory(of: path)
        do {
            try FileManager.default.createDirectory(
                atPath: directory, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        } catch {
            throw .keyEncryptionKeyUnusable(location: path, reason: "its directory cannot be made: \(error)")
        }
        let temporary = path + ".new-\(getpid())-\(StoredKey.newID())"
        let fd = open(temporary, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o600)
        guard fd >= 0 else {
            throw .keyEncryptionKeyUnusable(location: path, reason: String(cString: strerror(errno)))
        }
        var text: [UInt8]
        if let passphrase {
            var secret = SecureRandom.bytes(32)
            defer { for i in secret.indices { secret[i] = 0 } }
            text = try ProtectedKEKFile.seal(secret, passphrase: passphrase, location: path)
        } else {
            var secret = SecureRandom.bytes(32)
            defer { for i in secret.indices { secret[i] = 0 } }
            text = Hex.digits(secret) + [0x0A]
        }
        defer { for i in text.indices { text[i] = 0 } }
        let written = write(fd, text, text.count)
        let synced = fsync(fd) == 0
        close(fd)
        defer { unlink(temporary) }
        guard written == text.count, synced else {
            throw .keyEncryptionKeyUnusable(location: path, reason: "it cannot be written")
        }
        if link(temporary, path) != 0, errno != EEXIST {
            throw .keyEncryptionKeyUnusable(location: path, reason: String(cString: strerror(errno)))
        }
    }
}

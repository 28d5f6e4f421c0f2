import MdocCrypto

/// A key-encryption key file protected by a passphrase: one line
/// `mdoc-holder-kek-v1 scrypt LOGN SALT IV SEALED` (hex), the KEK sealed with AES-256-GCM under
/// scrypt(passphrase, SALT) (OpenSSL's scrypt, N = 2^LOGN, r = 8, p = 1).
enum ProtectedKEKFile {
    static let prefix = "mdoc-holder-kek-v1 scrypt "

    static func isProtected(_ bytes: [UInt8]) -> Bool { bytes.starts(with: Array(prefix.utf8)) }

    static func seal(_ kek: [UInt8], passphrase: String, location: String, cost: Scrypt.Cost = Scrypt.Cost())
        throws(SecureAreaError) -> [UInt8]
    {
        let salt = SecureRandom.bytes(16)
        let iv = SecureRandom.bytes(AESGCM.ivSize)
        do {
            let key = try Scrypt.derive(passphrase: passphrase, salt: salt, cost: cost)
            let sealed = try AESGCM.seal(kek, key: key, iv: iv, aad: Array(prefix.utf8))
            let line = prefix + "\(cost.logN) \(Hex.text(salt)) \(Hex.text(iv)) \(Hex.text(sealed))\n"
            return Array(line.utf8)
        } catch {
            throw .keyEncryptionKeyUnusable(location: location, reason: "it cannot be protected: \(error)")
        }
    }

    static func open(_ bytes: [UInt8], passphrase: String?, location: String) throws(SecureAreaError)
        -> KeyEncryptionKey
    {
        let fields = String(decoding: bytes, as: UTF8.self).split(whereSeparator: { $0 == " " || $0.isNewline })
        guard fields.count == 6, let logN = UInt8(fields[2]), let salt = unhex(fields[3]), let iv = unhex(fields[4]),
            let sealed = unhex(fields[5])
        else {
            throw .keyEncryptionKeyUnusable(location: location, reason: "its passphrase-protected form is damaged")
        }
        guard let passphrase else { throw .keyEncryptionKeyPassphraseRequired(location: location) }
        do {
            let key = try Scrypt.derive(passphrase: passphrase, salt: salt, cost: Scrypt.Cost(logN: logN))
            var kek = try AESGCM.open(sealed, key: key, iv: iv, aad: Array(prefix.utf8))
            defer { for i in kek.indices { kek[i] = 0 } }
            return try KeyEncryptionKey(secret: SecretBytes(kek), location: location)
        } catch let error as SecureAreaError {
            throw error
        } catch CryptoError.decryptionFailed {
            throw .wrongKeyEncryptionKeyPassphrase(location: location)
        } catch {
            throw .keyEncryptionKeyUnusable(location: location, reason: "\(error)")
        }
    }

    private static func unhex(_ text: Substring) -> [UInt8]? {
        let chars = Array(text.utf8)
        guard chars.count % 2 == 0 else { return nil }
        var out: [UInt8] = []
        var i = 0
        while i < chars.count {
            guard let byte = UInt8(String(decoding: chars[i..<(i + 2)], as: UTF8.self), radix: 16) else { return nil }
            out.append(byte)
            i += 2
        }
        return out
    }
}

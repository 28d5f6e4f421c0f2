import MdocCrypto

/// The software area's wrapped key: a PKCS#8 DER private key under AES-256-GCM.
///
/// ```
/// 0x01 version | flags (bit 0: passphrase) | KEK fingerprint (8)
/// [passphrase: scrypt log2(N) (1) | salt (16)] | IV (12) | ciphertext ‖ tag (16)
/// ```
/// The AEAD key is HKDF-SHA256(KEK, salt = scrypt(passphrase, salt) or empty, info = "mdoc-holder
/// software key v1"); the associated data is the header (everything before the IV) and the key
/// ID, so a blob moved to another key row does not open.
struct SoftwareKeyBlob {
    static let version: UInt8 = 1
    static let info = Array("mdoc-holder software key v1".utf8)

    /// The AEAD key: HKDF-SHA256(KEK, salt = the passphrase's scrypt output or empty, info).
    private static func wrappingKey(_ kek: KeyEncryptionKey, passphraseKey: [UInt8]) throws(CryptoError) -> SecretBytes
    {
        if passphraseKey.isEmpty { return kek.wrappingKey }
        return try HKDF.sha256(ikm: kek.secret, salt: passphraseKey, info: info, length: 32)
    }

    /// Wraps `der` (PKCS#8) for the key `keyID`.
    static func seal(
        _ der: [UInt8], keyID: String, kek: KeyEncryptionKey, passphrase: String?, cost: Scrypt.Cost
    ) throws(SecureAreaError) -> [UInt8] {
        var header: [UInt8] = [version, passphrase == nil ? 0 : 1] + kek.fingerprint
        var passphraseKey: [UInt8] = []
        do {
            if let passphrase {
                let salt = SecureRandom.bytes(16)
                header += [cost.logN] + salt
                passphraseKey = try Scrypt.derive(passphrase: passphrase, salt: salt, cost: cost).bytes
            }
            let key = try wrappingKey(kek, passphraseKey: passphraseKey)
            let iv = SecureRandom.bytes(AESGCM.ivSize)
            let sealed = try AESGCM.seal(der, key: key, iv: iv, aad: header + Array(keyID.utf8))
            return header + iv + sealed
        } catch {
            throw .operationFailed(area: .software, keyID: keyID, operation: "wrap", reason: "\(error)")
        }
    }

    /// Unwraps the PKCS#8 DER of `keyID`.
    static func open(_ blob: [UInt8], keyID: String, kek: KeyEncryptionKey, passphrase: String?)
        throws(SecureAreaError) -> [UInt8]
    {
        guard blob.count > 10 + AESGCM.ivSize + AESGCM.tagSize, blob[0] == version else {
            throw .damagedKey(keyID: keyID, reason: "the wrapped key is not in a known format")
        }
        let needsPassphrase = blob[1] & 1 == 1
        guard Array(blob[2..<10]) == kek.fingerprint else { throw .wrongKeyEncryptionKey(keyID: keyID) }
        var offset = 10
        var passphraseKey: [UInt8] = []
        if needsPassphrase {
            guard let passphrase else { throw .passphraseRequired(keyID: keyID) }
            guard blob.count > offset + 17 + AESGCM.ivSize + AESGCM.tagSize else {
                throw .damagedKey(keyID: keyID, reason: "the wrapped key is truncated")
            }
            let cost = Scrypt.Cost(logN: blob[offset])
            let salt = Array(blob[(offset + 1)..<(offset + 17)])
            offset += 17
            do {
                passphraseKey = try Scrypt.derive(passphrase: passphrase, salt: salt, cost: cost).bytes
            } catch {
                throw .damagedKey(keyID: keyID, reason: "\(error)")
            }
        }
        let header = Array(blob[0..<offset])
        let iv = Array(blob[offset..<(offset + AESGCM.ivSize)])
        let sealed = Array(blob[(offset + AESGCM.ivSize)...])
        do {
            let key = try wrappingKey(kek, passphraseKey: passphraseKey)
            return try AESGCM.open(sealed, key: key, iv: iv, aad: header + Array(keyID.utf8))
        } catch .decryptionFailed {
            if needsPassphrase { throw .wrongPassphrase(keyID: keyID) }
            throw .damagedKey(keyID: keyID, reason: "the wrapped key does not authenticate (altered, or moved)")
        } catch {
            throw .damagedKey(keyID: keyID, reason: "\(error)")
        }
    }
}

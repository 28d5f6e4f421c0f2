import MdocCrypto

/// Where device private keys live, and the only thing that uses them: it makes keys, signs,
/// does key agreement and deletes keys. Keys are referenced by a ``StoredKey`` the credential
/// store keeps; the area alone can turn it into a usable key (unwrap it under its
/// key-encryption key, load it into the TPM).
///
/// The shape follows multipaz's and EUDI's SecureArea: chosen by name, one implementation per
/// backend (``SoftwareSecureArea``, ``TPM2SecureArea``).
public protocol SecureArea: Sendable {
    var name: SecureAreaName { get }

    /// A new key with a fresh ID, made in the area. The caller stores the result.
    func createKey(_ settings: KeySettings) throws(SecureAreaError) -> StoredKey

    /// Takes an existing private key (from a PEM file) into the area. Areas that cannot import
    /// keys throw ``SecureAreaError/importNotSupported(area:)``.
    func importKey(_ key: PrivateKey, passphrase: String?) throws(SecureAreaError) -> StoredKey

    /// Signs `message` (the area hashes it for ECDSA): COSE form (raw r‖s, or EdDSA bytes).
    func sign(_ message: [UInt8], algorithm: SignatureAlgorithm, key: StoredKey, passphrase: String?)
        throws(SecureAreaError) -> [UInt8]

    /// ECDH with `peer`: the x coordinate of the shared point (for EMacKey).
    func keyAgreement(with peer: PublicKey, key: StoredKey, passphrase: String?) throws(SecureAreaError)
        -> SecretBytes

    /// Removes what the area holds for the key beyond the stored blob (a token object). The
    /// caller deletes the stored row.
    func deleteKey(_ key: StoredKey) throws(SecureAreaError)
}

extension SecureArea {
    /// What can be said about the key without using it.
    public func keyInfo(_ key: StoredKey) throws(SecureAreaError) -> KeyInfo { try KeyInfo(key) }
}

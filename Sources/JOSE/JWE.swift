import Base64
import MdocCrypto

/// JWE content encryption algorithms (RFC 7518 section 5.3): AES-GCM with a 96-bit IV and a
/// 128-bit tag.
public enum JWEContentEncryption: String, Sendable, CaseIterable, Hashable {
    case a128GCM = "A128GCM"
    case a192GCM = "A192GCM"
    case a256GCM = "A256GCM"

    /// The content encryption key length in bytes.
    public var keyLength: Int {
        switch self {
        case .a128GCM: return 16
        case .a192GCM: return 24
        case .a256GCM: return 32
        }
    }
}

/// A JWE in compact serialization (RFC 7516 section 7.1) with key management ECDH-ES in
/// direct key agreement mode (RFC 7518 section 4.6): the Concat KDF output is the content
/// encryption key, the encrypted key part is empty, and the sender's ephemeral public key is
/// the `epk` header.
public struct JWE: Sendable {
    /// The only key management algorithm implemented.
    public static let keyAgreement = "ECDH-ES"

    /// The compact serialization as received.
    public let compact: String
    /// The protected header members.
    public let header: [String: JSONValue]
    /// The base64url protected header as received; its ASCII bytes are the AAD.
    public let encodedHeader: String
    public let initializationVector: [UInt8]
    public let ciphertext: [UInt8]
    public let tag: [UInt8]

    /// Parses a compact JWE. Nothing is decrypted here.
    ///
    /// - Throws: ``JOSEError/malformed(_:)`` unless there are five base64url parts and the
    ///   header is a JSON object.
    public init(compact: String) throws(JOSEError) {
        let serialization = try CompactSerialization(compact, count: 5, kind: "JWE")
        guard let encryptedKey = serialization.decoded(1) else {
            throw .malformed("JWE encrypted key is not base64url")
        }
        guard let iv = serialization.decoded(2), let ciphertext = serialization.decoded(3),
            let tag = serialization.decoded(4)
        else { throw .malformed("JWE IV, ciphertext or tag is not base64url") }
        let header = try serialization.header()
        guard encryptedKey.isEmpty else { throw .unsupportedAlgorithm("JWE with an encrypted key (not ECDH-ES)") }
        self.compact = compact
        self.header = header
        self.encodedHeader = String(serialization.parts[0])
        self.initializationVector = iv
        self.ciphertext = ciphertext
        self.tag = tag
    }

    /// The `enc` header, if it is one of ours.
    public var contentEncryption: JWEContentEncryption? {
        header["enc"]?.stringValue.flatMap(JWEContentEncryption.init(rawValue:))
    }

    /// The `kid` header.
    public var keyID: String? { header["kid"]?.stringValue }

    /// The decoded `apu` header (Agreement PartyUInfo), if present.
    public var agreementPartyUInfo: [UInt8]? { header["apu"]?.stringValue.flatMap { Base64URL.decode($0) } }

    /// The decoded `apv` header (Agreement PartyVInfo), if present.
    public var agreementPartyVInfo: [UInt8]? { header["apv"]?.stringValue.flatMap { Base64URL.decode($0) } }

    /// The sender's ephemeral public key (`epk`).
    public func ephemeralPublicKey() throws(JOSEError) -> JWK {
        guard let epk = header["epk"] else { throw .malformed("JWE header has no epk") }
        return try JWK(json: epk)
    }

    /// Decrypts with the recipient's private key.
    ///
    /// - Throws: ``JOSEError/unsupportedAlgorithm(_:)`` for another `alg` or `enc`, `zip`, or a
    ///   `crit` header; ``JOSEError/malformed(_:)`` for a bad `epk`, `apu`, `apv`, IV or tag
    ///   length; ``JOSEError/invalidKey(_:)`` when `epk` is not on the key's curve;
    ///   ``JOSEError/decryptionFailed`` when the tag does not verify.
    public func decrypt(with key: PrivateKey) throws(JOSEError) -> [UInt8] {
        try decrypt(curve: key.curve) { (peer) throws(JOSEError) in
            do throws(CryptoError) {
                return try key.sharedSecret(with: peer)
            } catch {
                throw .key(error)
            }
        }
    }

    /// Decrypts with a recipient key on `curve` that only does key agreement (one a secure
    /// area keeps): `agree` answers Z = ECDH(the key, `epk`).
    public func decrypt(curve: Curve, agree: (PublicKey) throws(JOSEError) -> SecretBytes) throws(JOSEError)
        -> [UInt8]
    {
        guard header["alg"]?.stringValue == Self.keyAgreement else {
            throw .unsupportedAlgorithm("JWE alg \(header["alg"]?.stringValue ?? "(none)")")
        }
        guard let encryption = contentEncryption else {
            throw .unsupportedAlgorithm("JWE enc \(header["enc"]?.stringValue ?? "(none)")")
        }
        guard header["zip"] == nil else { throw .unsupportedAlgorithm("compressed JWE (zip)") }
        guard header["crit"] == nil else { throw .unsupportedAlgorithm("JWE crit header parameters") }
        guard initializationVector.count == AESGCM.ivSize else { throw .malformed("JWE IV is not 12 bytes") }
        guard tag.count == AESGCM.tagSize else { throw .malformed("JWE tag is not 16 bytes") }
        let apu = try partyInfo("apu")
        let apv = try partyInfo("apv")
        let ephemeral = try ephemeralPublicKey().publicKey()
        guard ephemeral.curve == curve else {
            throw .invalidKey("epk is on \(ephemeral.curve.rawValue), the key on \(curve.rawValue)")
        }
        let cek = ConcatKDF.derive(
            sharedSecret: try agree(ephemeral), keyLength: encryption.keyLength,
            algorithmID: Array(encryption.rawValue.utf8), partyUInfo: apu, partyVInfo: apv)
        do {
            return try AESGCM.open(
                ciphertext + tag, key: cek, iv: initializationVector, aad: Array(encodedHeader.utf8))
        } catch {
            throw .decryptionFailed
        }
    }

    /// Decrypts with the private part of `jwk`.
    public func decrypt(with jwk: JWK) throws(JOSEError) -> [UInt8] {
        try decrypt(with: jwk.privateKey())
    }

    private func partyInfo(_ name: String) throws(JOSEError) -> [UInt8] {
        guard let value = header[name] else { return [] }
        guard let text = value.stringValue, let bytes = Base64URL.decode(text) else {
            throw .malformed("JWE \(name) is not base64url")
        }
        return bytes
    }

    /// Encrypts `plaintext` to `recipient` with ECDH-ES (direct key agreement): a fresh
    /// ephemeral key on the recipient's curve, the key's `kid` copied into the header, a
    /// random 12-byte IV, the base64url header as AAD.
    ///
    /// - Parameters:
    ///   - agreementPartyUInfo, agreementPartyVInfo: raw `apu` / `apv` values (they go into
    ///     the header base64url encoded and into the KDF with a length prefix).
    ///   - header: further protected header members (`typ`, `cty`, ...).
    /// - Throws: ``JOSEError/unsupportedAlgorithm(_:)`` if the recipient's `alg` is set and is
    ///   not ECDH-ES, or its curve cannot do key agreement (Ed25519, Ed448).
    public static func encrypt(
        _ plaintext: [UInt8], to recipient: JWK, encryption: JWEContentEncryption,
        agreementPartyUInfo: [UInt8]? = nil, agreementPartyVInfo: [UInt8]? = nil, header: [String: JSONValue] = [:]
    ) throws(JOSEError) -> String {
        if let alg = recipient.algorithm, alg != keyAgreement {
            throw .unsupportedAlgorithm("the recipient key is for \(alg), not \(keyAgreement)")
        }
        guard recipient.curve.supportsKeyAgreement else {
            throw .unsupportedAlgorithm("\(recipient.curve.rawValue) keys cannot do key agreement")
        }
        let recipientKey = try recipient.publicKey()
        let ephemeral: PrivateKey
        do {
            ephemeral = try PrivateKey.generate(recipient.curve)
        } catch {
            throw .key(error)
        }
        var members = header
        members["alg"] = .string(keyAgreement)
        members["enc"] = .string(encryption.rawValue)
        members["epk"] = try JWK(publicKey: ephemeral.publicKey).json()
        if let kid = recipient.keyID { members["kid"] = .string(kid) }
        if let apu = agreementPartyUInfo { members["apu"] = .string(Base64URL.encode(apu)) }
        if let apv = agreementPartyVInfo { members["apv"] = .string(Base64URL.encode(apv)) }
        let encodedHeader = Base64URL.encode(JSONValue.object(members).serialized)

        let cek = try contentKey(
            privateKey: ephemeral, peer: recipientKey, encryption: encryption, apu: agreementPartyUInfo ?? [],
            apv: agreementPartyVInfo ?? [])
        let iv = SecureRandom.bytes(AESGCM.ivSize)
        let sealed: [UInt8]
        do {
            sealed = try AESGCM.seal(plaintext, key: cek, iv: iv, aad: Array(encodedHeader.utf8))
        } catch {
            throw .key(error)
        }
        let ciphertext = Array(sealed.dropLast(AESGCM.tagSize))
        let tag = Array(sealed.suffix(AESGCM.tagSize))
        return [
            encodedHeader, "", Base64URL.encode(iv), Base64URL.encode(ciphertext), Base64URL.encode(tag),
        ]
        .joined(separator: ".")
    }

    /// Z = ECDH(privateKey, peer); CEK = Concat KDF(Z, enc, apu, apv, key length).
    static func contentKey(
        privateKey: PrivateKey, peer: PublicKey, encryption: JWEContentEncryption, apu: [UInt8], apv: [UInt8]
    ) throws(JOSEError) -> SecretBytes {
        let z: SecretBytes
        do {
            z = try privateKey.sharedSecret(with: peer)
        } catch {
            throw .key(error)
        }
        return ConcatKDF.derive(
            sharedSecret: z, keyLength: encryption.keyLength, algorithmID: Array(encryption.rawValue.utf8),
            partyUInfo: apu, partyVInfo: apv)
    }
}

/// The Concat KDF of NIST SP 800-56A section 5.8.1 with SHA-256, as RFC 7518 section 4.6.2
/// profiles it for ECDH-ES.
enum ConcatKDF {
    /// - Parameters:
    ///   - keyLength: output length in bytes (keydatalen is eight times this).
    ///   - algorithmID: for direct key agreement, the ASCII `enc` value.
    ///   - partyUInfo, partyVInfo: the decoded `apu` / `apv` (empty when absent).
    static func derive(
        sharedSecret z: SecretBytes, keyLength: Int, algorithmID: [UInt8], partyUInfo: [UInt8], partyVInfo: [UInt8]
    ) -> SecretBytes {
        let otherInfo =
            lengthPrefixed(algorithmID) + lengthPrefixed(partyUInfo) + lengthPrefixed(partyVInfo)
            + bigEndian32(UInt32(keyLength * 8))
        var output: [UInt8] = []
        var counter: UInt32 = 1
        while output.count < keyLength {
            var input = bigEndian32(counter)
            z.withUnsafeBytes { input.append(contentsOf: $0) }
            input += otherInfo
            output += Digest.sha256(input)
            wipe(&input)
            counter += 1
        }
        var key = Array(output.prefix(keyLength))
        let secret = SecretBytes(key)
        wipe(&key)
        wipe(&output)
        return secret
    }

    static func lengthPrefixed(_ bytes: [UInt8]) -> [UInt8] {
        bigEndian32(UInt32(bytes.count)) + bytes
    }

    static func bigEndian32(_ value: UInt32) -> [UInt8] {
        [UInt8(value >> 24), UInt8(value >> 16 & 0xFF), UInt8(value >> 8 & 0xFF), UInt8(value & 0xFF)]
    }

    /// Overwrites an array that held key material (best effort; copies may exist).
    static func wipe(_ bytes: inout [UInt8]) {
        for i in bytes.indices { bytes[i] = 0 }
    }
}

import FoundationEssentials
import MdocCrypto
import PKCS11

/// Keys on a PKCS#11 token (a smart card, an HSM; softhsm2 in the tests): made on the token
/// (sensitive, not extractable), used in place: ECDSA with CKM_ECDSA over a digest computed
/// here, ECDH with CKM_ECDH1_DERIVE. The store keeps the key's PKCS#11 URI
/// (`pkcs11:token=LABEL;id=%..;object=ID;type=private`); the module path and the token's user
/// PIN come from the configuration, never from the store.
public final class PKCS11SecureArea: SecureArea, @unchecked Sendable {
    public let name = SecureAreaName.pkcs11
    /// The module's library (softhsm2: /usr/lib/softhsm/libsofthsm2.so).
    public let modulePath: String
    /// The label of the token new keys are made on.
    public let tokenLabel: String
    /// The token's user PIN; nil: every use fails with ``SecureAreaError/passphraseRequired(keyID:)``.
    let pin: String?

    public init(modulePath: String, tokenLabel: String, pin: String?) {
        self.modulePath = modulePath
        self.tokenLabel = tokenLabel
        self.pin = pin
    }

    /// A session on `token`, logged in.
    private func session(token: String, keyID: String) throws(SecureAreaError) -> PKCS11Session {
        guard let pin else { throw .passphraseRequired(keyID: keyID) }
        let module: PKCS11Module
        do {
            module = try PKCS11Module.load(path: modulePath)
        } catch {
            let hint = error.concernsModule ? "; give the module with --pkcs11-module" : ""
            throw .backendUnavailable(area: .pkcs11, reason: "\(error)\(hint)")
        }
        do {
            let slot = try module.slot(tokenLabel: token)
            return try module.openSession(slot: slot, pin: pin)
        } catch {
            if error.isWrongPIN { throw .wrongPassphrase(keyID: keyID) }
            if error.isTokenGone { throw .backendUnavailable(area: .pkcs11, reason: "\(error): insert the token") }
            throw .operationFailed(area: .pkcs11, keyID: keyID, operation: "open a session", reason: "\(error)")
        }
    }

    public func createKey(_ settings: KeySettings) throws(SecureAreaError) -> StoredKey {
        guard let parameters = Self.ecParameters(settings.curve) else {
            throw .unsupportedCurve(area: .pkcs11, curve: settings.curve)
        }
        let id = StoredKey.newID()
        let session = try session(token: tokenLabel, keyID: id)
        let point: [UInt8]
        do {
            point = try session.generateECKeyPair(ecParams: parameters, id: Array(id.utf8), label: "mdoc-holder \(id)")
        } catch {
            throw .operationFailed(area: .pkcs11, keyID: id, operation: "create a key", reason: "\(error)")
        }
        let size = settings.curve.coordinateSize
        guard point.count == 1 + 2 * size, point[0] == 0x04,
            let publicKey = try? PublicKey(
                curve: settings.curve, x: Array(point[1...size]), y: Array(point[(1 + size)...]))
        else {
            throw .operationFailed(
                area: .pkcs11, keyID: id, operation: "create a key", reason: "the token's public point is unreadable")
        }
        let uri = PKCS11URI(token: tokenLabel, id: Array(id.utf8), object: id)
        return StoredKey(
            id: id, area: .pkcs11, curve: settings.curve, publicKeyDER: publicKey.subjectPublicKeyInfoDER,
            blob: Array(uri.description.utf8), requiresPassphrase: true)
    }

    public func importKey(_ key: PrivateKey, passphrase: String?) throws(SecureAreaError) -> StoredKey {
        throw .importNotSupported(area: .pkcs11)
    }

    /// The session and the private key object of `key`.
    private func open(_ key: StoredKey) throws(SecureAreaError) -> (PKCS11Session, UInt) {
        guard key.area == .pkcs11 else { throw .wrongArea(keyID: key.id, expected: .pkcs11, found: key.area) }
        guard let uri = PKCS11URI(String(decoding: key.blob, as: UTF8.self)) else {
            throw .damagedKey(keyID: key.id, reason: "its PKCS#11 URI cannot be read")
        }
        let session = try session(token: uri.token, keyID: key.id)
        let objects: [UInt]
        do {
            objects = try session.objects(id: uri.id, privateKeys: true)
        } catch {
            throw .operationFailed(area: .pkcs11, keyID: key.id, operation: "find the key", reason: "\(error)")
        }
        guard let object = objects.first else {
            throw .damagedKey(
                keyID: key.id, reason: "the token \(uri.token) holds no key with its ID (deleted, or another token)")
        }
        return (session, object)
    }

    public func sign(_ message: [UInt8], algorithm: SignatureAlgorithm, key: StoredKey, passphrase: String?)
        throws(SecureAreaError) -> [UInt8]
    {
        guard let digest = algorithm.digest else {
            throw .unsupportedOperation(keyID: key.id, reason: "the pkcs11 area signs ECDSA only")
        }
        let (session, object) = try open(key)
        do {
            return try session.signECDSA(digest: Digest.hash(message, algorithm: digest), key: object)
        } catch {
            throw .operationFailed(area: .pkcs11, keyID: key.id, operation: "sign", reason: "\(error)")
        }
    }

    public func keyAgreement(with peer: PublicKey, key: StoredKey, passphrase: String?) throws(SecureAreaError)
        -> SecretBytes
    {
        guard peer.curve == key.curve, let y = peer.y else {
            throw .unsupportedOperation(keyID: key.id, reason: "the peer key is on \(peer.curve.rawValue)")
        }
        let (session, object) = try open(key)
        do {
            var secret = try session.deriveECDH(
                key: object, peerPoint: [0x04] + peer.x + y, length: key.curve.coordinateSize)
            defer { for i in secret.indices { secret[i] = 0 } }
            return SecretBytes(secret)
        } catch {
            throw .operationFailed(area: .pkcs11, keyID: key.id, operation: "do key agreement", reason: "\(error)")
        }
    }

    /// Destroys the key pair on the token.
    public func deleteKey(_ key: StoredKey) throws(SecureAreaError) {
        guard let uri = PKCS11URI(String(decoding: key.blob, as: UTF8.self)) else { return }
        let session = try session(token: uri.token, keyID: key.id)
        do {
            for privateKeys in [true, false] {
                for object in try session.objects(id: uri.id, privateKeys: privateKeys) { try session.destroy(object) }
            }
        } catch {
            throw .operationFailed(area: .pkcs11, keyID: key.id, operation: "delete", reason: "\(error)")
        }
    }

    /// CKA_EC_PARAMS: the DER of the curve's OID.
    static func ecParameters(_ curve: Curve) -> [UInt8]? {
        switch curve {
        case .p256: return [0x06, 0x08, 0x2A, 0x86, 0x48, 0xCE, 0x3D, 0x03, 0x01, 0x07]
        case .p384: return [0x06, 0x05, 0x2B, 0x81, 0x04, 0x00, 0x22]
        case .p521: return [0x06, 0x05, 0x2B, 0x81, 0x04, 0x00, 0x23]
        default: return nil
        }
    }
}

import Foundation
import MdocCrypto
import Testing

@testable import SecureArea

/// The software area unwraps a key for one operation and keeps nothing unwrapped after it
/// (docs/operator-guide.md, "What the software area keeps in memory"), and the quick reading of
/// the unwrapped PKCS#8 gives the same key as OpenSSL's generic reading, on every curve.
struct UnwrappedKeyLifetimeTests {
    let message = Array("DeviceAuthentication bytes stand-in".utf8)

    @Test func noUnwrappedKeyOutlivesTheOperationThatNeededIt() throws {
        let area = SoftwareSecureArea(source: .given(.ephemeral()))
        let key = try area.createKey(KeySettings(curve: .p256))
        #expect(area.liveUnwrappedKeys == 0)
        // While an operation holds its unwrapped key, the count shows it...
        let held = try area.unwrap(key, passphrase: nil)
        #expect(area.liveUnwrappedKeys == 1)
        #expect(held.key.publicKey == (try key.publicKey()))
        _ = consume held
        // ...and signing, key agreement and a failed operation leave none behind.
        let signature = try area.sign(message, algorithm: .es256, key: key, passphrase: nil)
        #expect(try key.publicKey().isValidSignature(signature, for: message, algorithm: .es256))
        #expect(area.liveUnwrappedKeys == 0)
        let peer = try PrivateKey.generate(.p256)
        let secret = try area.keyAgreement(with: peer.publicKey, key: key, passphrase: nil)
        #expect(secret.bytes == (try peer.sharedSecret(with: key.publicKey()).bytes))
        #expect(area.liveUnwrappedKeys == 0)
        let otherCurve = try PrivateKey.generate(.p384).publicKey
        #expect(throws: SecureAreaError.self) { _ = try area.keyAgreement(with: otherCurve, key: key, passphrase: nil) }
        #expect(area.liveUnwrappedKeys == 0)
    }

    @Test(arguments: [Curve.p256, .p384, .p521, .brainpoolP256r1, .brainpoolP512r1, .ed25519, .ed448])
    func everyCurvesUnwrappedKeySignsForItsPublicKey(_ curve: Curve) throws {
        let area = SoftwareSecureArea(source: .given(.ephemeral()))
        let key = try area.createKey(KeySettings(curve: curve))
        let algorithm: SignatureAlgorithm =
            curve.isOKP ? .edDSA : curve == .p384 ? .es384 : curve == .p521 ? .es512 : .es256
        let signature = try area.sign(message, algorithm: algorithm, key: key, passphrase: nil)
        #expect(try key.publicKey().isValidSignature(signature, for: message, algorithm: algorithm))
        #expect(try !key.publicKey().isValidSignature(signature, for: message + [0], algorithm: algorithm))
    }

    @Test func anX25519KeyAgreesWithItsPeer() throws {
        let area = SoftwareSecureArea(source: .given(.ephemeral()))
        let key = try area.createKey(KeySettings(curve: .x25519))
        let peer = try PrivateKey.generate(.x25519)
        let secret = try area.keyAgreement(with: peer.publicKey, key: key, passphrase: nil)
        #expect(secret.bytes == (try peer.sharedSecret(with: key.publicKey()).bytes))
    }

    /// A wrapped PKCS#8 without the optional public point (another tool's, or an older
    /// OpenSSL's) is read the generic way, and signs for the same public key.
    @Test func aWrappedKeyWithoutItsPublicPointStillSigns() throws {
        let kek = KeyEncryptionKey.ephemeral()
        let area = SoftwareSecureArea(source: .given(kek))
        let original = try PrivateKey.generate(.p256)
        let der = try original.pkcs8DER()
        // 30 81 87 | 02 01 00 | AlgorithmIdentifier | 04 6d (ECPrivateKey with [1] publicKey)
        let algorithm = Array(der[6..<(8 + Int(der[7]))])
        let scalar = try original.rawPrivateKey().bytes
        let ecPrivateKey: [UInt8] = [0x30, 0x25, 0x02, 0x01, 0x01, 0x04, 0x20] + scalar
        let body: [UInt8] = [0x02, 0x01, 0x00] + algorithm + [0x04, UInt8(ecPrivateKey.count)] + ecPrivateKey
        let stripped: [UInt8] = [0x30, UInt8(body.count)] + body
        #expect(stripped.count < der.count)
        let id = StoredKey.newID()
        let blob = try SoftwareKeyBlob.seal(stripped, keyID: id, kek: kek, passphrase: nil, cost: Scrypt.Cost())
        let key = StoredKey(
            id: id, area: .software, curve: .p256, publicKeyDER: original.publicKey.subjectPublicKeyInfoDER,
            blob: blob, requiresPassphrase: false)
        let signature = try area.sign(message, algorithm: .es256, key: key, passphrase: nil)
        #expect(original.publicKey.isValidSignature(signature, for: message, algorithm: .es256))
        #expect(area.liveUnwrappedKeys == 0)
    }
}

import Foundation
import MdocCrypto
import SecureArea
import TestSupport
import Testing

/// Every backend passes the same contract: keys are made in the area, their signatures verify
/// with an independent implementation (Python cryptography), their ECDH gives the secret the
/// peer computes, they survive a restart of the backend, and a wrong PIN or an absent backend
/// gives a typed error.
@Suite(.serialized) struct SecureAreaContractTests {
    static let backends: [SecureAreaName] = [.software, .tpm2, .pkcs11]
    let message = Array("DeviceAuthentication bytes stand-in".utf8)

    @Test(arguments: backends) func aNewKeySignsAndPythonVerifies(_ name: SecureAreaName) throws {
        let backend = try BackendUnderTest(name)
        let area = backend.area()
        let key = try area.createKey(KeySettings(curve: .p256))
        #expect(key.area == name)
        #expect(key.curve == .p256)
        let info = try area.keyInfo(key)
        #expect(info.area == name && info.curve == .p256 && info.attestation == nil)
        #expect(info.isHardwareBound == (name != .software))
        #expect(info.publicKey == (try key.publicKey()))
        // The stored blob is never a plaintext private key.
        #expect(!String(decoding: key.blob, as: UTF8.self).contains("PRIVATE KEY"))
        let signature = try area.sign(message, algorithm: .es256, key: key, passphrase: nil)
        #expect(signature.count == 64)
        #expect(try IndependentPeer.verifies(signature, over: message, publicKey: key.publicKey(), algorithm: .es256))
        // A signature over other bytes does not verify: the peer really checks.
        #expect(
            try !IndependentPeer.verifies(signature, over: message + [0], publicKey: key.publicKey(), algorithm: .es256)
        )
    }

    @Test(arguments: backends) func p384SignsES384(_ name: SecureAreaName) throws {
        let backend = try BackendUnderTest(name)
        let area = backend.area()
        let key = try area.createKey(KeySettings(curve: .p384))
        let signature = try area.sign(message, algorithm: .es384, key: key, passphrase: nil)
        #expect(try IndependentPeer.verifies(signature, over: message, publicKey: key.publicKey(), algorithm: .es384))
    }

    @Test func theSoftwareAreaSignsEdDSA() throws {
        let backend = try BackendUnderTest(.software)
        let area = backend.area()
        let key = try area.createKey(KeySettings(curve: .ed25519))
        let signature = try area.sign(message, algorithm: .edDSA, key: key, passphrase: nil)
        #expect(try IndependentPeer.verifies(signature, over: message, publicKey: key.publicKey(), algorithm: .edDSA))
    }

    @Test(arguments: backends) func ecdhGivesThePeersSharedSecret(_ name: SecureAreaName) throws {
        let backend = try BackendUnderTest(name)
        let area = backend.area()
        let key = try area.createKey(KeySettings(curve: .p256))
        let peer = try IndependentPeer.ecdh(with: key.publicKey())
        let ours = try area.keyAgreement(with: peer.peer, key: key, passphrase: nil)
        #expect(ours.bytes == peer.sharedSecret)
    }

    @Test(arguments: backends) func aKeySurvivesARestartOfTheBackend(_ name: SecureAreaName) throws {
        let backend = try BackendUnderTest(name)
        let key = try backend.area().createKey(KeySettings(curve: .p256))
        let before = backend.area()
        _ = try before.sign(message, algorithm: .es256, key: key, passphrase: nil)
        try backend.restart()
        // The instance that was in use reconnects; a new one (a restarted program) works too.
        for area in [before, backend.area()] {
            let signature = try area.sign(message, algorithm: .es256, key: key, passphrase: nil)
            #expect(
                try IndependentPeer.verifies(signature, over: message, publicKey: key.publicKey(), algorithm: .es256))
        }
    }

    @Test func aWrappedSoftwareKeyOpensOnlyUnderItsOwnID() throws {
        let backend = try BackendUnderTest(.software)
        let area = backend.area()
        let key = try area.createKey(KeySettings(curve: .p256))
        var moved = key
        moved.id = StoredKey.newID()
        #expect(throws: SecureAreaError.self) {
            _ = try area.sign(message, algorithm: .es256, key: moved, passphrase: nil)
        }
    }

    @Test func aKeyWrappedUnderAnotherKEKSaysSo() throws {
        let key = try SoftwareSecureArea(source: .given(.ephemeral())).createKey(KeySettings())
        #expect(throws: SecureAreaError.wrongKeyEncryptionKey(keyID: key.id)) {
            _ = try SoftwareSecureArea(source: .given(.ephemeral())).sign(
                message, algorithm: .es256, key: key, passphrase: nil)
        }
    }

    @Test(arguments: backends) func aWrongOrMissingPINIsATypedError(_ name: SecureAreaName) throws {
        let backend = try BackendUnderTest(name)
        let area = backend.area()
        if name == .pkcs11 {
            // The token's user PIN guards every key on it.
            let key = try area.createKey(KeySettings(curve: .p256))
            #expect(key.requiresPassphrase)
            #expect(throws: SecureAreaError.wrongPassphrase(keyID: key.id)) {
                _ = try backend.areaWithWrongPIN().sign(message, algorithm: .es256, key: key, passphrase: nil)
            }
            #expect(throws: SecureAreaError.passphraseRequired(keyID: key.id)) {
                _ = try PKCS11SecureArea(modulePath: SoftHSM.module, tokenLabel: backend.tokenLabel!, pin: nil).sign(
                    message, algorithm: .es256, key: key, passphrase: nil)
            }
            return
        }
        let key = try area.createKey(KeySettings(curve: .p256, passphrase: "2468"))
        #expect(key.requiresPassphrase)
        let signature = try area.sign(message, algorithm: .es256, key: key, passphrase: "2468")
        #expect(try IndependentPeer.verifies(signature, over: message, publicKey: key.publicKey(), algorithm: .es256))
        #expect(throws: SecureAreaError.wrongPassphrase(keyID: key.id)) {
            _ = try area.sign(message, algorithm: .es256, key: key, passphrase: "1357")
        }
        #expect(throws: SecureAreaError.passphraseRequired(keyID: key.id)) {
            _ = try area.sign(message, algorithm: .es256, key: key, passphrase: nil)
        }
    }

    @Test func aDeletedTokenKeyIsGoneFromTheToken() throws {
        let backend = try BackendUnderTest(.pkcs11)
        let area = backend.area()
        let key = try area.createKey(KeySettings(curve: .p256))
        _ = try area.sign(message, algorithm: .es256, key: key, passphrase: nil)
        try area.deleteKey(key)
        #expect {
            _ = try area.sign(message, algorithm: .es256, key: key, passphrase: nil)
        } throws: { error in
            guard case .damagedKey(let id, _) = error as? SecureAreaError else { return false }
            return id == key.id
        }
    }

    @Test(arguments: backends) func anAbsentBackendIsATypedError(_ name: SecureAreaName) throws {
        let backend = try BackendUnderTest(name)
        let key = try backend.area().createKey(KeySettings(curve: .p256))
        backend.makeAbsent()
        do {
            _ = try backend.area().sign(message, algorithm: .es256, key: key, passphrase: nil)
            Issue.record("signed without its backend")
        } catch {
            switch (name, error) {
            case (.software, .keyEncryptionKeyMissing(let location, _)): #expect(location == backend.kekPath)
            case (.tpm2, .backendUnavailable(let area, _)): #expect(area == .tpm2)
            case (.pkcs11, .backendUnavailable(let area, _)): #expect(area == .pkcs11)
            default: Issue.record("unexpected error: \(error)")
            }
        }
    }
}

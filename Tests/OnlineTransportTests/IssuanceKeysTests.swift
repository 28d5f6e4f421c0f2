import MdocCrypto
import SecureArea
import Synchronization
import Testing

@testable import OnlineFlows

/// The device keys made for an issuance: none whose coordinates begin with a zero octet (an
/// issuer writing them as integers, as pymdoccbor does, would drop it and strict verifiers
/// would refuse the credential), none left in the area when they are set aside.
@Suite struct IssuanceKeysTests {
    /// Hands out the given keys in order; records what it deletes.
    final class ScriptedArea: SecureArea {
        let name = SecureAreaName.software
        let state: Mutex<(queue: [StoredKey], deleted: [String])>

        init(_ keys: [PrivateKey]) {
            let stored = keys.enumerated().map { n, key in
                StoredKey(
                    id: "key\(n)", area: .software, curve: .p256, publicKeyDER: key.publicKey.subjectPublicKeyInfoDER,
                    blob: [], requiresPassphrase: false)
            }
            state = Mutex((stored, []))
        }

        var deleted: [String] { state.withLock { $0.deleted } }

        func createKey(_ settings: KeySettings) throws(SecureAreaError) -> StoredKey {
            state.withLock { $0.queue.removeFirst() }
        }
        func importKey(_ key: PrivateKey, passphrase: String?) throws(SecureAreaError) -> StoredKey {
            throw .importNotSupported(area: name)
        }
        func sign(_ message: [UInt8], algorithm: SignatureAlgorithm, key: StoredKey, passphrase: String?)
            throws(SecureAreaError) -> [UInt8]
        { [] }
        func keyAgreement(with peer: PublicKey, key: StoredKey, passphrase: String?) throws(SecureAreaError)
            -> SecretBytes
        { throw .importNotSupported(area: name) }
        func deleteKey(_ key: StoredKey) throws(SecureAreaError) {
            state.withLock { $0.deleted.append(key.id) }
        }
    }

    /// A fresh P-256 key whose x (or y) coordinate begins with a zero octet when `zero`, else
    /// one whose coordinates both begin with a non-zero octet.
    static func key(leadingZero zero: Bool) throws -> PrivateKey {
        while true {
            let key = try PrivateKey.generate(.p256)
            if IssuanceKeys.hasLeadingZeroOctet(key.publicKey) == zero { return key }
        }
    }

    @Test("a key whose coordinate begins with a zero octet is deleted and another made")
    func leadingZeroKeyIsReplaced() throws {
        let area = ScriptedArea([
            try Self.key(leadingZero: true), try Self.key(leadingZero: true), try Self.key(leadingZero: false),
        ])
        let made = try IssuanceKeys.make(1, in: area)
        #expect(made.keys.map(\.id) == ["key2"])
        #expect(area.deleted == ["key0", "key1"])
        let kept = try made.keys[0].publicKey()
        #expect(kept.x.count == 32 && kept.x.first != 0 && kept.y?.first != 0)
    }

    @Test("keys without a leading zero octet are kept as made")
    func ordinaryKeysAreKept() throws {
        let area = ScriptedArea([try Self.key(leadingZero: false), try Self.key(leadingZero: false)])
        let made = try IssuanceKeys.make(2, in: area)
        #expect(made.keys.map(\.id) == ["key0", "key1"])
        #expect(area.deleted.isEmpty)
    }

    @Test("after as many attempts, the last key is kept whatever its octets")
    func attemptsAreBounded() throws {
        let zeros = try (0..<IssuanceKeys.attempts).map { _ in try Self.key(leadingZero: true) }
        let area = ScriptedArea(zeros)
        let made = try IssuanceKeys.make(1, in: area)
        #expect(made.keys.map(\.id) == ["key\(IssuanceKeys.attempts - 1)"])
        #expect(area.deleted.count == IssuanceKeys.attempts - 1)
    }

    @Test("the check reads both coordinates")
    func bothCoordinatesAreRead() throws {
        var found = (x: false, y: false)
        for _ in 0..<4000 where !(found.x && found.y) {
            let key = try PrivateKey.generate(.p256).publicKey
            guard let y = key.y else { continue }
            if key.x.first == 0 {
                found.x = true
                #expect(IssuanceKeys.hasLeadingZeroOctet(key))
            }
            if y.first == 0 {
                found.y = true
                #expect(IssuanceKeys.hasLeadingZeroOctet(key))
            }
            if key.x.first != 0, y.first != 0 { #expect(!IssuanceKeys.hasLeadingZeroOctet(key)) }
        }
        #expect(found.x && found.y)
    }
}

import FoundationEssentials
import JOSE
import MdocCrypto
import OnlineTransport
import OpenID4VCI
import SecureArea
import Wallet

/// The device keys of one credential configuration: made in a secure area before the
/// credential request, proved with one `jwt` key proof each, stored with the credential or
/// kept with a pending issuance, and deleted when the issuance fails.
struct IssuanceKeys {
    var keys: [StoredKey]
    let area: any SecureArea

    /// `count` new keys in `area` (none are left behind when one cannot be made).
    static func make(_ count: Int, in area: any SecureArea) throws(CredentialIssuanceError) -> IssuanceKeys {
        var made = IssuanceKeys(keys: [], area: area)
        for _ in 0..<count {
            do {
                made.keys.append(try makeKey(in: area))
            } catch {
                made.discard()
                throw .secureArea(error)
            }
        }
        return made
    }

    /// How many keys ``makeKey(in:)`` makes at most for one it keeps.
    static let attempts = 8

    /// A new key in `area` whose coordinates both begin with a non-zero octet, when one of
    /// ``attempts`` is. pymdoccbor, the mdoc library of the EU reference issuer, writes the
    /// MSO's device key from the coordinates' integer values and so drops their leading zero
    /// octets (RFC 9053 section 2.1 keeps them) for about 1 key in 128; strict verifiers then
    /// refuse every presentation of that credential. Such a key is deleted and another made:
    /// it costs a key generation, and the keys kept are as random as the area's, less than
    /// one in a hundred of the possible ones set aside.
    static func makeKey(in area: any SecureArea) throws(SecureAreaError) -> StoredKey {
        var made = 0
        while true {
            let key = try area.createKey(KeySettings())
            made += 1
            let publicKey: PublicKey
            do {
                publicKey = try key.publicKey()
            } catch {
                try? area.deleteKey(key)
                throw error
            }
            guard made < attempts, Self.hasLeadingZeroOctet(publicKey) else { return key }
            try? area.deleteKey(key)
        }
    }

    /// Whether an EC2 key's x or y coordinate begins with a zero octet (the octets an issuer
    /// that writes integers would drop).
    static func hasLeadingZeroOctet(_ key: PublicKey) -> Bool {
        guard let y = key.y else { return false }
        return key.x.first == 0 || y.first == 0
    }

    /// Why a configuration whose jwt proofs need a key attestation cannot be received: a key
    /// attestation is a JWT a wallet provider signs about the key's secure area, and none of
    /// ours (software, TPM 2.0, PKCS#11) has one to give.
    static func noKeyAttestation(configuration id: String) -> String {
        "configuration \(id) requires key attestations (key_attestations_required): the issuer takes a key proof "
            + "only with an attestation of the key signed by a wallet provider, and no secure area here (software, "
            + "TPM 2.0, PKCS#11) can attest its keys; nothing was asked of the issuer"
    }

    /// Deletes the keys from their secure area.
    func discard() {
        for key in keys { try? area.deleteKey(key) }
    }

    /// One `jwt` key proof (OpenID4VCI 1.0 appendix F.1) per key, for `audience` and `nonce`.
    static func proofs(
        _ keys: [StoredKey], secureAreas: SecureAreaRegistry, audience: String, nonce: String?, issuedAt: Date,
        clientID: String?
    ) throws(CredentialIssuanceError) -> [String] {
        var proofs: [String] = []
        for key in keys {
            let deviceKey: SecureAreaKey
            do {
                deviceKey = try secureAreas.deviceKey(key)
            } catch {
                throw .secureArea(error)
            }
            guard let algorithm = JWSAlgorithm.forSigning(with: key.curve) else {
                throw .protocolError(.unsupported("a \(key.curve.rawValue) key cannot sign a JWT proof"))
            }
            proofs.append(
                try IssuerClient.mapped { () throws(IssuanceError) in
                    try KeyProof.make(
                        publicKey: deviceKey.publicKey, audience: audience, nonce: nonce, issuedAt: issuedAt,
                        clientID: clientID
                    ) { (input) throws(SecureAreaError) in
                        try deviceKey.signature(over: input, algorithm: algorithm.signatureAlgorithm)
                    }
                })
        }
        return proofs
    }
}

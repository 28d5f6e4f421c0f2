import Foundation
import JOSE
import MdocCrypto
import MdocIssuer

/// The online flow's cryptography: verifying a signed Request Object (JWS ES256 with an x5c
/// chain to the configured verifier root: two ECDSA verifications) and encrypting the
/// response to the verifier (JWE ECDH-ES with A256GCM: a key generation, an ECDH, the Concat
/// KDF and AES-GCM over a 64 kB vp_token).
enum OnlineBenchmark {
    static func run(iterations: Int, openssl: OpenSSLFloor) throws {
        let pki = try TestPKI.generate()
        // The reader certificate and its CA stand in for a verifier's: the cost is the same.
        let requestObject = try JWS.sign(
            payload: Array(#"{"client_id":"x509_san_dns:verifier.example","nonce":"n"}"#.utf8),
            header: ["typ": "oauth-authz-req+jwt", "x5c": JWS.x5cHeader([pki.reader])], key: pki.readerKey)
        let anchors = [pki.readerCA]
        let now = Date()
        let verify = try Measurement.run("online: JWS ES256 + x5c chain verify", iterations: iterations) {
            let jws = try JWS(compact: requestObject)
            let chain = try jws.certificateChain()
            precondition(CertificateChainValidator.validate(chain: chain, anchors: anchors, at: now).isValid)
            try jws.verify(with: try chain[0].publicKey)
        }
        let recipient = try PrivateKey.generate(.p256)
        let jwk = try JWK(publicKey: recipient.publicKey, keyID: "enc-1")
        let payload = SecureRandom.bytes(64 * 1024)
        let encrypt = try Measurement.run("online: JWE ECDH-ES A256GCM encrypt (64 KiB)", iterations: iterations) {
            _ = try JWE.encrypt(payload, to: jwk, encryption: .a256GCM)
        }
        func floor(_ body: () -> Void) -> Double {
            Measurement.run("floor", iterations: iterations, body).medianMicroseconds
        }
        let key = SecureRandom.bytes(32)
        let iv = SecureRandom.bytes(12)
        let kdfInput = SecureRandom.bytes(60)
        let encryptFloor =
            floor { openssl.generateKey() } + floor { openssl.ecdh() } + floor { openssl.sha256(kdfInput) }
            + floor { openssl.aesGCM(payload, key: key, iv: iv, seal: true) }
        print("online (OpenID4VP): Request Object verification, response encryption")
        print(Comparison(ours: verify, floorMicroseconds: 2 * floor { openssl.ecdsaVerify() }).line())
        print(Comparison(ours: encrypt, floorMicroseconds: encryptFloor).line())
    }
}

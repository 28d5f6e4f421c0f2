import ISO18013
import MdocCrypto

/// OpenSSL's own work for one holder transaction (``OpenSSLFloor``: direct EVP calls,
/// everything fetched beforehand), one operation per part: a P-256 key generation, an ECDH,
/// two HKDF-SHA256, the AES-256-GCM decryption of the request and encryption of a 60 000-byte
/// response, the two ECDSA verifications of reader authentication (readerAuth and the reader
/// certificate), one ES256 signature.
struct FloorWork {
    struct Part {
        /// How many times the operation is in a transaction.
        let times: Double
        let run: () -> Void
    }

    let keyGeneration: Part
    let ecdh: Part
    let hkdf: Part
    let decryptRequest: Part
    let encryptResponse: Part
    let verify: Part
    let sign: Part

    var parts: [Part] { [keyGeneration, ecdh, hkdf, decryptRequest, encryptResponse, verify, sign] }

    /// The work on `request` (the DeviceRequest's bytes) and `response`, keys derived from the
    /// shared secret `z` with `salt`.
    init(openssl: OpenSSLFloor, z: [UInt8], salt: [UInt8], request: [UInt8], response: [UInt8]) throws {
        let info = Array("SKReader".utf8)
        let skReader = try HKDF.sha256(ikm: SecretBytes(z), salt: salt, info: info, length: 32).bytes
        let skDevice = try HKDF.sha256(ikm: SecretBytes(z), salt: salt, info: Array("SKDevice".utf8), length: 32)
            .bytes
        let readerIV: [UInt8] = [0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1]
        let mdocIV: [UInt8] = [0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0, 1]
        keyGeneration = Part(times: 1) { openssl.generateKey() }
        ecdh = Part(times: 1) { openssl.ecdh() }
        hkdf = Part(times: 1) {
            openssl.hkdf(ikm: z, salt: salt, info: info)
            openssl.hkdf(ikm: z, salt: salt, info: info)
        }
        decryptRequest = Part(times: 1) { openssl.aesGCM(request, key: skReader, iv: readerIV, seal: false) }
        encryptResponse = Part(times: 1) { openssl.aesGCM(response, key: skDevice, iv: mdocIV, seal: true) }
        verify = Part(times: 2) { openssl.ecdsaVerify() }
        sign = Part(times: 1) { openssl.ecdsaSign() }
    }
}

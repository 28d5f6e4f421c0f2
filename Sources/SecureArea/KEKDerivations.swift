import MdocCrypto
import Synchronization

/// What the software area derives from its KEK, computed on first use and kept as long as the
/// KEK: not when the KEK is read, so a process that only lists credentials or waits (an idle
/// service) does not start OpenSSL's MAC and KDF for them.
final class KEKDerivations: Sendable {
    struct Values: Sendable {
        /// HMAC-SHA256(KEK, "mdoc-holder kek id"), first 8 bytes.
        let fingerprint: [UInt8]
        /// HKDF-SHA256(KEK, no salt, ``SoftwareKeyBlob/info``), 32 bytes.
        let wrappingKey: SecretBytes
    }

    private let secret: SecretBytes
    private let made = Mutex<Values?>(nil)

    init(_ secret: SecretBytes) {
        self.secret = secret
    }

    var values: Values {
        made.withLock { made in
            if let made { return made }
            // HKDF-SHA256 of 32 bytes to 32 bytes does not fail.
            let values = Values(
                fingerprint: Array(HMAC.sha256(key: secret, data: Array("mdoc-holder kek id".utf8)).prefix(8)),
                wrappingKey: try! HKDF.sha256(ikm: secret, salt: [], info: SoftwareKeyBlob.info, length: 32))
            made = values
            return values
        }
    }
}

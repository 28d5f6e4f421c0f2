internal import COpenSSL

/// Algorithm implementations fetched from OpenSSL's default library context once, for the
/// life of the process, instead of implicitly on every call (OpenSSL 3's own advice:
/// "explicit fetching", ossl-guide-libcrypto-introduction and migration_guide, Performance).
///
/// Each object is immutable and reference counted by OpenSSL; it is never freed, as a
/// process-wide cache. Using them from several threads at once is what OpenSSL intends.
enum FetchedAlgorithms {
    nonisolated(unsafe) static let sha256: OpaquePointer = fetch("SHA2-256", EVP_MD_fetch)
    nonisolated(unsafe) static let sha384: OpaquePointer = fetch("SHA2-384", EVP_MD_fetch)
    nonisolated(unsafe) static let sha512: OpaquePointer = fetch("SHA2-512", EVP_MD_fetch)
    nonisolated(unsafe) static let aes128GCM: OpaquePointer = fetch("AES-128-GCM", EVP_CIPHER_fetch)
    nonisolated(unsafe) static let aes192GCM: OpaquePointer = fetch("AES-192-GCM", EVP_CIPHER_fetch)
    nonisolated(unsafe) static let aes256GCM: OpaquePointer = fetch("AES-256-GCM", EVP_CIPHER_fetch)
    nonisolated(unsafe) static let hkdf: OpaquePointer = fetch("HKDF", EVP_KDF_fetch)
    nonisolated(unsafe) static let hmac: OpaquePointer = fetch("HMAC", EVP_MAC_fetch)

    /// An HMAC context with SHA-256 set and no key, to duplicate per MAC.
    nonisolated(unsafe) static let hmacSHA256Prototype: OpaquePointer = {
        guard let context = EVP_MAC_CTX_new(hmac) else { preconditionFailure(missing("an HMAC context")) }
        let params = OSSLParamList()
        params.addUTF8("digest", "SHA2-256")
        guard params.withParams({ EVP_MAC_CTX_set_params(context, $0) }) == 1 else {
            preconditionFailure(missing("HMAC with SHA2-256"))
        }
        return context
    }()

    /// The default provider ships all of these; without them nothing here can work, so a
    /// missing one stops the process with the reason. `fetcher` is `EVP_MD_fetch`,
    /// `EVP_CIPHER_fetch`, `EVP_KDF_fetch` or `EVP_MAC_fetch`.
    private static func fetch(
        _ name: String, _ fetcher: (OpaquePointer?, UnsafePointer<CChar>?, UnsafePointer<CChar>?) -> OpaquePointer?
    ) -> OpaquePointer {
        guard let fetched = fetcher(nil, name, nil) else { preconditionFailure(missing(name)) }
        return fetched
    }

    private static func missing(_ name: String) -> String {
        "OpenSSL's default provider has no \(name) (\(drainOpenSSLErrors())): is OpenSSL 3 installed whole?"
    }
}

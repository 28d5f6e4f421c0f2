internal import COpenSSL
import FoundationEssentials
import Synchronization

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

/// An OpenSSL 3 provider that holds keys outside this process (the TPM 2.0 provider of
/// Debian's `tpm2-openssl`), loaded into a library context of its own next to the default
/// provider. Keys made or read through it are ``PrivateKey``s whose operations run in the
/// provider; every other key of the process keeps using OpenSSL's default context, so session
/// keys never go through the TPM.
///
/// Sendable: the context is set up in `init` and only read afterwards; OpenSSL library contexts
/// and providers may be used from several threads at once.
public final class OpenSSLProvider: @unchecked Sendable, CustomStringConvertible {
    /// The provider's name ("tpm2").
    public let name: String
    let libraryContext: OpaquePointer
    /// Prefers the provider's implementations, falls back to the default provider's (digests).
    let propertyQuery: String
    private let loaded: OpaquePointer
    private let fallback: OpaquePointer

    /// Serialises the environment change some providers read their configuration from.
    private static let environmentLock = Mutex<Void>(())

    /// Loads the provider `name` into a new library context.
    ///
    /// - Parameter environment: variables the provider reads while it starts (the tpm2 provider
    ///   reads `TPM2OPENSSL_TCTI`); set for the duration of the load, then restored.
    /// - Throws: ``CryptoError/providerUnavailable(name:reason:)`` when the provider module is not
    ///   installed or fails to start (for tpm2: no TPM at the TCTI).
    public init(name: String, environment: [String: String] = [:]) throws(CryptoError) {
        guard let context = OSSL_LIB_CTX_new() else { throw .fromOpenSSL("OSSL_LIB_CTX_new") }
        guard let fallback = OSSL_PROVIDER_load(context, "default") else {
            OSSL_LIB_CTX_free(context)
            throw .fromOpenSSL("OSSL_PROVIDER_load(default)")
        }
        // The provider's address leaves the lock as a number: a pointer derived from `context`
        // cannot be `sending` (OpenSSL's objects are not Sendable to Swift).
        let address = Self.environmentLock.withLock { _ -> UInt in
            var saved: [String: String?] = [:]
            for (key, value) in environment {
                saved[key] = getenv(key).map { String(cString: $0) }
                setenv(key, value, 1)
            }
            defer {
                for (key, value) in saved {
                    if let value { setenv(key, value, 1) } else { unsetenv(key) }
                }
            }
            return UInt(bitPattern: OSSL_PROVIDER_load(context, name))
        }
        let provider = OpaquePointer(bitPattern: address)
        guard let provider else {
            let reason = drainOpenSSLErrors()
            OSSL_PROVIDER_unload(fallback)
            OSSL_LIB_CTX_free(context)
            throw .providerUnavailable(name: name, reason: reason)
        }
        self.name = name
        self.libraryContext = context
        self.propertyQuery = "?provider=\(name)"
        self.loaded = provider
        self.fallback = fallback
    }

    deinit {
        OSSL_PROVIDER_unload(loaded)
        OSSL_PROVIDER_unload(fallback)
        OSSL_LIB_CTX_free(libraryContext)
    }

    public var description: String { "OpenSSLProvider(\(name))" }
}

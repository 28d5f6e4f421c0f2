internal import COpenSSL
import FoundationEssentials

/// The outcome of ``CertificateChainValidator/validate(chain:anchors:at:)``.
public struct ChainValidationResult: Sendable, Equatable {
    /// Whether the chain leads from the leaf to one of the anchors and every check passed.
    public var isValid: Bool
    /// The anchor the chain ended at, when valid.
    public var trustAnchor: Certificate?
    /// A human-readable reason when invalid, e.g. "certificate has expired (depth 0, CN=reader)"
    /// or "unable to get local issuer certificate (depth 0, CN=...)".
    public var failure: String?

    /// A result with the given fields.
    public init(isValid: Bool, trustAnchor: Certificate? = nil, failure: String? = nil) {
        self.isValid = isValid
        self.trustAnchor = trustAnchor
        self.failure = failure
    }
}

/// X.509 path validation (RFC 5280, as implemented by OpenSSL's `X509_verify_cert`).
public enum CertificateChainValidator {
    /// Validates `chain` against `anchors` at `time`.
    ///
    /// - Parameters:
    ///   - chain: the leaf first, then intermediates in any order (as carried in a COSE x5chain).
    ///     A certificate in `chain` is used only if it helps build the path.
    ///   - anchors: trusted certificates: roots, or trusted intermediates (partial chains are
    ///     accepted, so a non-self-signed anchor works). A leaf that is itself an anchor is still
    ///     checked (validity period).
    ///   - time: the moment at which validity periods are checked.
    ///
    /// Signatures, validity periods, and basicConstraints / keyUsage keyCertSign on issuers are
    /// checked. No purpose is enforced: callers check ``Certificate/extendedKeyUsage`` themselves.
    public static func validate(chain: [Certificate], anchors: [Certificate], at time: Date) -> ChainValidationResult {
        guard let leaf = chain.first else { return .init(isValid: false, failure: "empty certificate chain") }
        guard !anchors.isEmpty else { return .init(isValid: false, failure: "no trust anchors") }
        defer { clearOpenSSLErrors() }

        guard let trustStore = TrustStore.cached(for: anchors) else { return failure("X509_STORE_new") }
        // The raw store below lives as long as this object: keep it until OpenSSL is done (another
        // thread may evict it from the cache meanwhile).
        defer { withExtendedLifetime(trustStore) {} }
        if let known = ValidatedPath.lookup(chain: chain, store: trustStore, at: time) {
            return .init(isValid: true, trustAnchor: known)
        }
        let store = trustStore.store
        guard let untrusted = mdoc_sk_X509_new_null() else { return failure("sk_X509_new_null") }
        defer { mdoc_sk_X509_free(untrusted) }  // does not free the certificates, which we own
        for certificate in chain.dropFirst() where mdoc_sk_X509_push(untrusted, certificate.x509) <= 0 {
            return failure("sk_X509_push")
        }
        guard let context = X509_STORE_CTX_new() else { return failure("X509_STORE_CTX_new") }
        defer { X509_STORE_CTX_free(context) }
        guard X509_STORE_CTX_init(context, store, leaf.x509, untrusted) == 1 else {
            return failure("X509_STORE_CTX_init")
        }
        let params = X509_STORE_CTX_get0_param(context)
        X509_VERIFY_PARAM_set_time(params, time_t(time.timeIntervalSince1970.rounded(.down)))
        X509_VERIFY_PARAM_set_flags(params, UInt(X509_V_FLAG_PARTIAL_CHAIN | X509_V_FLAG_USE_CHECK_TIME))

        let verified = X509_verify_cert(context)
        guard verified == 1 else {
            let code = X509_STORE_CTX_get_error(context)
            guard code != X509_V_OK else { return failure("X509_verify_cert") }
            var reason = String(cString: X509_verify_cert_error_string(Int(code)))
            let depth = X509_STORE_CTX_get_error_depth(context)
            if let certificate = X509_STORE_CTX_get_current_cert(context) {
                reason += " (depth \(depth), \(Certificate.displayName(X509_get_subject_name(certificate))))"
            } else {
                reason += " (depth \(depth))"
            }
            return .init(isValid: false, failure: reason)
        }
        let path = X509_STORE_CTX_get0_chain(context)
        let count = mdoc_sk_X509_num(path)
        let top = count > 0 ? mdoc_sk_X509_value(path, count - 1) : nil
        let anchor = anchors.first { X509_cmp($0.x509, top) == 0 }
        if let anchor {
            let certificates = (0..<count).compactMap { mdoc_sk_X509_value(path, $0) }
            ValidatedPath.remember(
                chain: chain, store: trustStore, anchor: anchor,
                from: certificates.map { Certificate.date(X509_get0_notBefore($0)) }.max() ?? time,
                until: certificates.map { Certificate.date(X509_get0_notAfter($0)) }.min() ?? time)
        }
        return .init(
            isValid: anchor != nil, trustAnchor: anchor, failure: anchor == nil ? "no trust anchor in the path" : nil)
    }

    private static func failure(_ operation: String) -> ChainValidationResult {
        .init(isValid: false, failure: "OpenSSL \(operation) failed: \(drainOpenSSLErrors())")
    }
}

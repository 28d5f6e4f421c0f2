import FoundationEssentials

/// Chains that OpenSSL validated, remembered with the window in which every certificate of
/// the path is valid: the same reader (or document signer, or verifier) coming back with the
/// same certificate objects under the same anchors is trusted again without re-checking the
/// certificate signatures, as long as the time is inside that window. Outside it, or for any
/// other chain, ``CertificateChainValidator`` validates in full (and says why it fails).
///
/// Identities are compared, not contents: ``Certificate/cached(der:)`` hands out one object per
/// DER encoding, and an entry holds its certificates and store, so an identity is never
/// reused for another certificate while the entry lives. Nothing here outlives the process
/// (no revocation is checked anywhere, so none is missed here).
struct ValidatedPath: @unchecked Sendable {
    let chain: [Certificate]
    let store: TrustStore
    let anchor: Certificate
    let from: Date
    let until: Date

    private static let recent = RecentlyUsed<ValidatedPath>(capacity: 32)

    /// The anchor of a path remembered for this chain and store whose window holds `time`.
    static func lookup(chain: [Certificate], store: TrustStore, at time: Date) -> Certificate? {
        recent.find { $0.isFor(chain, store) && $0.from <= time && time <= $0.until }?.anchor
    }

    static func remember(chain: [Certificate], store: TrustStore, anchor: Certificate, from: Date, until: Date) {
        recent.remember(
            ValidatedPath(chain: chain, store: store, anchor: anchor, from: from, until: until),
            replacing: { $0.isFor(chain, store) })
    }

    private func isFor(_ other: [Certificate], _ otherStore: TrustStore) -> Bool {
        store === otherStore && chain.count == other.count && zip(chain, other).allSatisfy { $0 === $1 }
    }
}

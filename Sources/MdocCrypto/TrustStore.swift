internal import COpenSSL

/// An OpenSSL `X509_STORE` holding a set of trust anchors, built once per set and kept for the
/// next validations against the same ``Certificate`` objects (a holder's configured reader
/// roots, a reader's IACAs): building a store and adding the anchors again for every chain
/// cost more than the signature checks themselves.
///
/// Sendable: the store is not changed after it is built, and OpenSSL locks its own lookups
/// (one store serving many `X509_STORE_CTX`s at once is its intended use).
final class TrustStore: @unchecked Sendable {
    let store: OpaquePointer
    /// The anchors, held so the identities the cache compares stay theirs.
    let anchors: [Certificate]

    private init?(anchors: [Certificate]) {
        guard let store = X509_STORE_new() else { return nil }
        for anchor in anchors where X509_STORE_add_cert(store, anchor.x509) != 1 {
            // Adding the same certificate twice is not an error worth failing for.
            clearOpenSSLErrors()
        }
        self.store = store
        self.anchors = anchors
    }

    deinit {
        X509_STORE_free(store)
    }

    /// The most recently used stores; a few distinct anchor sets are all a process uses.
    private static let recent = RecentlyUsed<TrustStore>(capacity: 8)

    /// The store for exactly these anchor objects, in this order: a cached one, or a new one
    /// that is cached. nil only when OpenSSL cannot allocate a store.
    static func cached(for anchors: [Certificate]) -> TrustStore? {
        if let hit = recent.find({ $0.holds(anchors) }) { return hit }
        guard let made = TrustStore(anchors: anchors) else { return nil }
        recent.remember(made)
        return made
    }

    private func holds(_ other: [Certificate]) -> Bool {
        anchors.count == other.count && zip(anchors, other).allSatisfy { $0 === $1 }
    }
}

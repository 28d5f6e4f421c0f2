import Foundation
import Synchronization

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

    private static let recent = Mutex<[ValidatedPath]>([])
    private static let capacity = 32

    static func lookup(chain: [Certificate], store: TrustStore, at time: Date) -> Certificate? {
        recent.withLock { paths in
            guard
                let index = paths.lastIndex(where: {
                    $0.store === store && $0.chain.count == chain.count && zip($0.chain, chain).allSatisfy { $0 === $1 }
                })
            else { return nil }
            let path = paths[index]
            guard path.from <= time, time <= path.until else { return nil }
            paths.append(paths.remove(at: index))
            return path.anchor
        }
    }

    static func remember(chain: [Certificate], store: TrustStore, anchor: Certificate, from: Date, until: Date) {
        recent.withLock { paths in
            paths.removeAll {
                $0.store === store && $0.chain.count == chain.count && zip($0.chain, chain).allSatisfy { $0 === $1 }
            }
            paths.append(ValidatedPath(chain: chain, store: store, anchor: anchor, from: from, until: until))
            if paths.count > capacity { paths.removeFirst(paths.count - capacity) }
        }
    }
}

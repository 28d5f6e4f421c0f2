import MdocCrypto
import Synchronization

/// A software-area key unwrapped for one operation. The key lives in OpenSSL's key object,
/// which OpenSSL clears when it frees it, when this object goes: at the end of the signature or
/// key agreement that unwrapped it. ``SoftwareSecureArea/liveUnwrappedKeys`` counts these
/// objects, so a test can see that none outlives its use.
final class UnwrappedKey: Sendable {
    let key: PrivateKey
    private let live: LiveCount

    init(_ key: PrivateKey, counting live: LiveCount) {
        self.key = key
        self.live = live
        live.count.add(1, ordering: .relaxed)
    }

    deinit {
        live.count.subtract(1, ordering: .relaxed)
    }
}

/// How many ``UnwrappedKey`` objects of one area exist now.
final class LiveCount: Sendable {
    let count = Atomic<Int>(0)
}

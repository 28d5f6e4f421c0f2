import MdocCrypto
import Synchronization

/// The reader certificate profile check (``ReaderAuthentication/profileProblem(_:)``) of the
/// last certificates checked, by object identity: a certificate that arrives again is the same
/// parsed object (`Certificate.cached(der:)`), and its extensions cannot change, so its
/// extensions are decoded once, not on every request (a shop's reader presents the same
/// certificate every time). Each entry holds its certificate, so an identity is never reused
/// while it is remembered.
enum ReaderProfileMemory {
    private struct Entry: Sendable {
        let certificate: Certificate
        let problem: String?
    }

    private static let capacity = 16
    private static let entries = Mutex<[Entry]>([])

    /// The profile problem of `leaf` (nil when it meets the profile), computed by `check`
    /// the first time `leaf` is seen.
    static func problem(of leaf: Certificate, _ check: (Certificate) -> String?) -> String? {
        if let known = entries.withLock({ $0.last { $0.certificate === leaf } }) { return known.problem }
        let problem = check(leaf)
        entries.withLock { entries in
            entries.append(Entry(certificate: leaf, problem: problem))
            if entries.count > capacity { entries.removeFirst(entries.count - capacity) }
        }
        return problem
    }
}

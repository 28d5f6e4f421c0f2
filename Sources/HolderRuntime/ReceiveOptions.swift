import SecureArea

/// The options of one issuance (`credentials receive --batch --wait --secure-area`, or
/// ReceiveCredential's a{sv}).
public struct ReceiveOptions: Sendable, Equatable {
    /// Copies of each credential, each bound to its own new key.
    public var batch: Int
    /// Seconds a deferred issuance is polled before it is kept pending.
    public var wait: Int
    /// The secure area new keys are made in (the store's default when nil).
    public var secureArea: SecureAreaName?

    public init(batch: Int = 1, wait: Int = 30, secureArea: SecureAreaName? = nil) {
        self.batch = batch
        self.wait = wait
        self.secureArea = secureArea
    }

    /// The most copies one issuance asks for.
    public static let batchLimit = 100
}

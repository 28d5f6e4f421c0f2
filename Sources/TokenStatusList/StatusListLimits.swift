/// The bounds a Status List Token is read within.
public struct StatusListLimits: Sendable, Equatable {
    /// The largest token (compressed list included) accepted, in bytes.
    public var maximumTokenBytes: Int
    /// The largest list accepted once inflated, in bytes: a deflate bomb stops here.
    public var maximumListBytes: Int

    /// Defaults: a 1 MiB token, a 16 MiB list (2^27 one-bit entries; the draft's 2^20-entry
    /// eight-bit example inflates to 1 MiB).
    public init(maximumTokenBytes: Int = 1 << 20, maximumListBytes: Int = 16 << 20) {
        self.maximumTokenBytes = maximumTokenBytes
        self.maximumListBytes = maximumListBytes
    }
}

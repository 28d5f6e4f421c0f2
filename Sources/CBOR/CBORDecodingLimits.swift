/// Bounds on what a decoder accepts, so hostile input cannot exhaust memory or stack.
public struct CBORDecodingLimits: Sendable, Equatable {
    /// Deepest nesting of arrays, maps and tags.
    public var maxDepth: Int
    /// Most data items in one input (a container counts as one, plus its members).
    public var maxItems: Int
    /// Largest input in bytes.
    public var maxBytes: Int

    public init(maxDepth: Int, maxItems: Int, maxBytes: Int) {
        self.maxDepth = maxDepth
        self.maxItems = maxItems
        self.maxBytes = maxBytes
    }

    /// Generous for any mdoc message (a DeviceResponse nests about 10 deep; portraits are
    /// tens of kilobytes), small enough that a hostile message is refused quickly.
    public static let `default` = CBORDecodingLimits(maxDepth: 32, maxItems: 200_000, maxBytes: 16 * 1024 * 1024)
}

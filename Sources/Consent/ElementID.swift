/// A data element, named as the standard names it: an mdoc's namespace and element
/// identifier, or an SD-JWT VC claim by its path (no namespace; the identifier is the path as
/// `address.locality`, `nationalities[0]`).
public struct ElementID: Sendable, Codable, Hashable, Comparable, CustomStringConvertible {
    public var nameSpace: String
    public var identifier: String

    public init(_ nameSpace: String, _ identifier: String) {
        self.nameSpace = nameSpace
        self.identifier = identifier
    }

    /// An SD-JWT VC claim, by its path.
    public init(claimPath: String) {
        self.init("", claimPath)
    }

    /// `namespace:element`, the form policy files and history use; an SD-JWT VC claim path as
    /// it is.
    public var description: String { nameSpace.isEmpty ? identifier : "\(nameSpace):\(identifier)" }

    /// The order of ``description`` ("namespace:element"), without building it in the common
    /// cases (a response sorts its elements on every presentation).
    public static func < (a: ElementID, b: ElementID) -> Bool {
        if a.nameSpace == b.nameSpace { return a.identifier < b.identifier }
        let left = a.nameSpace.utf8
        let right = b.nameSpace.utf8
        // Where neither namespace starts with the other, they decide alone.
        if !left.starts(with: right) && !right.starts(with: left) { return a.nameSpace < b.nameSpace }
        return a.description < b.description
    }
}

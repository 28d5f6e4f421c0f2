import JOSE

/// A claims path pointer (OpenID4VP 1.0 section 7): from the top of the claims, a sequence of
/// object member names, array indices and "every element of this array" (`null`).
public struct ClaimPath: Sendable, Hashable, CustomStringConvertible {
    public enum Component: Sendable, Hashable {
        case name(String)
        case index(Int)
        case allElements
    }

    public var components: [Component]

    public init(_ components: [Component]) {
        self.components = components
    }

    /// A path of member names only.
    public init(names: String...) {
        self.components = names.map { .name($0) }
    }

    /// The JSON form: strings, non-negative integers and null.
    ///
    /// - Throws: ``SDJWTError/malformed(_:)`` for an empty path or any other element.
    public init(json: [JSONValue]) throws(SDJWTError) {
        guard !json.isEmpty else { throw .malformed("a claims path is empty") }
        var components: [Component] = []
        for element in json {
            if let name = element.stringValue {
                components.append(.name(name))
            } else if let index = element.intValue, index >= 0 {
                components.append(.index(index))
            } else if element.isNull {
                components.append(.allElements)
            } else {
                throw .malformed("a claims path element is not a string, a non-negative integer or null")
            }
        }
        self.components = components
    }

    /// The JSON form.
    public var json: [JSONValue] {
        components.map {
            switch $0 {
            case .name(let name): return .string(name)
            case .index(let index): return .number(Double(index))
            case .allElements: return .null
            }
        }
    }

    /// `address.street_address`, `nationalities[0]`, `degrees[*].type`: for messages and
    /// listings (names are element identifiers, never values).
    public var description: String {
        var text = ""
        for component in components {
            switch component {
            case .name(let name): text += text.isEmpty ? name : "." + name
            case .index(let index): text += "[\(index)]"
            case .allElements: text += "[*]"
            }
        }
        return text
    }

    func appending(_ component: Component) -> ClaimPath {
        ClaimPath(components + [component])
    }

    /// Whether `self` and `other` agree on their common length (`allElements` matches any index).
    func agrees(with other: ClaimPath) -> Bool {
        for (mine, theirs) in zip(components, other.components) {
            switch (mine, theirs) {
            case (.allElements, .index), (.index, .allElements), (.allElements, .allElements): continue
            default: if mine != theirs { return false }
            }
        }
        return true
    }
}

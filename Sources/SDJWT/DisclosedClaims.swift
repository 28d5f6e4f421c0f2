import JOSE

/// An SD-JWT's claims with its Disclosures in place, and the path at which each Disclosure
/// was used: what a holder needs to choose Disclosures for requested claims, and what a
/// verifier reads.
public struct DisclosedClaims: Sendable {
    /// The claims: the payload without `_sd`, `_sd_alg` and undisclosed array elements, with
    /// every Disclosure's claim or element in place.
    public let claims: [String: JSONValue]
    /// For each Disclosure (by position in the SD-JWT), the concrete path of the claim or
    /// element it revealed.
    public let disclosurePaths: [Int: ClaimPath]

    init(payload: [String: JSONValue], disclosures: [Disclosure], hashAlgorithm: SDHashAlgorithm) throws(SDJWTError) {
        var digests: [String: Int] = [:]
        for (index, disclosure) in disclosures.enumerated() {
            digests[disclosure.digest(hashAlgorithm)] = index
        }
        var walk = DisclosureWalk(disclosures: disclosures, digests: digests)
        var top = payload
        top["_sd_alg"] = nil
        claims = try walk.object(top, at: ClaimPath([]))
        if let unused = disclosures.indices.first(where: { walk.paths[$0] == nil }) {
            throw .disclosureMismatch("disclosure \(unused) is not referenced by any digest")
        }
        disclosurePaths = walk.paths
    }

    /// The concrete paths of the claims or elements `path` selects, in document order. Empty
    /// when nothing is there.
    public func resolve(_ path: ClaimPath) -> [ClaimPath] {
        var found: [ClaimPath] = []
        Self.resolve(path.components[...], in: .object(claims), at: ClaimPath([]), into: &found)
        return found
    }

    /// The values `path` selects (as ``resolve(_:)``).
    public func values(at path: ClaimPath) -> [JSONValue] {
        resolve(path).compactMap { value(atConcrete: $0) }
    }

    /// The Disclosures (positions in the SD-JWT) to reveal so that a verifier sees every claim
    /// `paths` select: each selected claim's own Disclosure, those of the objects and arrays
    /// around it, and those inside it (a selected object is revealed whole).
    public func disclosuresNeeded(for paths: [ClaimPath]) -> Set<Int> {
        let selected = paths.flatMap(resolve)
        var needed: Set<Int> = []
        for (index, disclosed) in disclosurePaths
        where selected.contains(where: { $0.agrees(with: disclosed) }) {
            needed.insert(index)
        }
        return needed
    }

    /// Every path a verifier could be shown, leaves and containers alike, with whether it is
    /// selectively disclosable (has a Disclosure of its own), in a stable order.
    public var claimPaths: [(path: ClaimPath, selectivelyDisclosable: Bool)] {
        var out: [(ClaimPath, Bool)] = []
        let disclosed = Set(disclosurePaths.values)
        Self.list(.object(claims), at: ClaimPath([]), disclosed: disclosed, into: &out)
        return out
    }

    func value(atConcrete path: ClaimPath) -> JSONValue? {
        var current: JSONValue = .object(claims)
        for component in path.components {
            switch component {
            case .name(let name):
                guard let next = current[name] else { return nil }
                current = next
            case .index(let index):
                guard let array = current.arrayValue, array.indices.contains(index) else { return nil }
                current = array[index]
            case .allElements:
                return nil
            }
        }
        return current
    }

    private static func resolve(
        _ rest: ArraySlice<ClaimPath.Component>, in value: JSONValue, at path: ClaimPath, into found: inout [ClaimPath]
    ) {
        guard let head = rest.first else {
            found.append(path)
            return
        }
        switch head {
        case .name(let name):
            if let next = value[name] { resolve(rest.dropFirst(), in: next, at: path.appending(head), into: &found) }
        case .index(let index):
            if let array = value.arrayValue, array.indices.contains(index) {
                resolve(rest.dropFirst(), in: array[index], at: path.appending(head), into: &found)
            }
        case .allElements:
            for (index, element) in (value.arrayValue ?? []).enumerated() {
                resolve(rest.dropFirst(), in: element, at: path.appending(.index(index)), into: &found)
            }
        }
    }

    private static func list(
        _ value: JSONValue, at path: ClaimPath, disclosed: Set<ClaimPath>, into out: inout [(ClaimPath, Bool)]
    ) {
        if let object = value.objectValue {
            for name in object.keys.sorted() {
                let child = path.appending(.name(name))
                out.append((child, disclosed.contains(child)))
                list(object[name]!, at: child, disclosed: disclosed, into: &out)
            }
        } else if let array = value.arrayValue {
            for (index, element) in array.enumerated() {
                let child = path.appending(.index(index))
                out.append((child, disclosed.contains(child)))
                list(element, at: child, disclosed: disclosed, into: &out)
            }
        }
    }
}

/// The recursive replacement of digests by Disclosures (RFC 9901 section 7.1 step 3).
private struct DisclosureWalk {
    let disclosures: [Disclosure]
    let digests: [String: Int]
    var paths: [Int: ClaimPath] = [:]
    var seenDigests: Set<String> = []

    mutating func value(_ value: JSONValue, at path: ClaimPath) throws(SDJWTError) -> JSONValue {
        if let object = value.objectValue { return .object(try self.object(object, at: path)) }
        if let array = value.arrayValue { return .array(try self.array(array, at: path)) }
        return value
    }

    mutating func object(_ object: [String: JSONValue], at path: ClaimPath) throws(SDJWTError) -> [String: JSONValue] {
        var result: [String: JSONValue] = [:]
        for (name, member) in object where name != "_sd" {
            result[name] = try value(member, at: path.appending(.name(name)))
        }
        guard let sd = object["_sd"] else { return result }
        guard let digests = sd.arrayValue else { throw .disclosureMismatch("_sd at \(path.orTop) is not an array") }
        for entry in digests {
            guard let digest = entry.stringValue else {
                throw .disclosureMismatch("_sd at \(path.orTop) holds something other than a digest string")
            }
            guard let index = try use(digest) else { continue }  // a decoy or an undisclosed claim
            let disclosure = disclosures[index]
            guard let name = disclosure.claimName else {
                throw .disclosureMismatch("array-element disclosure \(index) is referenced from _sd")
            }
            guard result[name] == nil else {
                throw .disclosureMismatch("disclosure \(index) names \(name), already present at \(path.orTop)")
            }
            let claimPath = path.appending(.name(name))
            paths[index] = claimPath
            result[name] = try value(disclosure.value, at: claimPath)
        }
        return result
    }

    mutating func array(_ array: [JSONValue], at path: ClaimPath) throws(SDJWTError) -> [JSONValue] {
        var result: [JSONValue] = []
        for element in array {
            guard let object = element.objectValue, object.count == 1, let reference = object["..."] else {
                result.append(try value(element, at: path.appending(.index(result.count))))
                continue
            }
            guard let digest = reference.stringValue else {
                throw .disclosureMismatch("an array element at \(path.orTop) has a \"...\" that is not a digest string")
            }
            guard let index = try use(digest) else { continue }  // not disclosed: the element is left out
            let disclosure = disclosures[index]
            guard disclosure.claimName == nil else {
                throw .disclosureMismatch("property disclosure \(index) is referenced as an array element")
            }
            let elementPath = path.appending(.index(result.count))
            paths[index] = elementPath
            result.append(try value(disclosure.value, at: elementPath))
        }
        return result
    }

    /// The Disclosure with `digest`, if there is one; a digest seen twice is refused.
    private mutating func use(_ digest: String) throws(SDJWTError) -> Int? {
        guard seenDigests.insert(digest).inserted else {
            throw .disclosureMismatch("a digest appears more than once in the payload")
        }
        return digests[digest]
    }
}

extension ClaimPath {
    fileprivate var orTop: String { components.isEmpty ? "the top level" : description }
}

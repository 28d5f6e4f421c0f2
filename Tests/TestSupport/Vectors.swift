import Foundation

/// The standard's vectors, committed under Fixtures/vectors (copied from the project's shared
/// vector set, which records where each value comes from).
public enum Vectors {
    public static let fixtures: URL = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("Fixtures")

    private static func load(_ name: String) -> [String: Any] {
        let url = fixtures.appendingPathComponent("vectors").appendingPathComponent(name)
        guard let data = try? Data(contentsOf: url),
            let object = try? JSONSerialization.jsonObject(with: data) as? [String: Any]
        else { fatalError("cannot read vector file \(url.path)") }
        return object
    }

    nonisolated(unsafe) public static let annexD = load("iso18013-5-annex-d.json")
    nonisolated(unsafe) public static let oid4vp = load("oid4vp-mdoc.json")
    nonisolated(unsafe) public static let iso18013Part7 = load("iso18013-7.json")

    /// The bytes of an Annex D entry.
    public static func annexD(_ key: String) -> [UInt8] { hexEntry(annexD, key) }
    public static func oid4vp(_ key: String) -> [UInt8] { hexEntry(oid4vp, key) }
    public static func iso18013Part7(_ key: String) -> [UInt8] { hexEntry(iso18013Part7, key) }

    public static func entry(_ file: [String: Any], _ key: String) -> [String: Any] {
        guard let e = file[key] as? [String: Any] else { fatalError("no vector \(key)") }
        return e
    }

    public static func hexEntry(_ file: [String: Any], _ key: String) -> [UInt8] {
        guard let hex = entry(file, key)["hex"] as? String else { fatalError("vector \(key) has no hex") }
        return [UInt8](hex: hex)
    }
}

extension Array where Element == UInt8 {
    /// Bytes from hex text (test input only; traps on bad hex).
    public init(hex: String) {
        let chars = Array(hex.utf8)
        precondition(chars.count % 2 == 0, "odd hex length")
        func nibble(_ c: UInt8) -> UInt8 {
            switch c {
            case 48...57: return c - 48
            case 97...102: return c - 87
            case 65...70: return c - 55
            default: preconditionFailure("bad hex digit")
            }
        }
        self = stride(from: 0, to: chars.count, by: 2).map { nibble(chars[$0]) << 4 | nibble(chars[$0 + 1]) }
    }

    public var hex: String { map { String(format: "%02x", $0) }.joined() }
}

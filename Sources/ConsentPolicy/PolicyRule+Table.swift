import BoundedFile
import ConfigFile
import Consent
import FoundationEssentials
import MdocCrypto

extension PolicyRule {
    /// A `[[rule]]` table of a policy file; `anchor:` paths are relative to `baseDirectory`.
    init(_ table: ConfigFileParser.Table, baseDirectory: URL) throws(PolicyError) {
        var reader: ReaderMatch?
        var docType: String?
        var allow: Allow?
        for (key, value, line) in table.entries {
            switch (key, value) {
            case ("reader", .string(let r)):
                guard reader == nil else { throw .invalidRule(line: line, "a rule has reader or issuer, not both") }
                reader = try Self.reader(r, line: line, baseDirectory: baseDirectory)
            case ("issuer", .string(let i)):
                guard reader == nil else { throw .invalidRule(line: line, "a rule has reader or issuer, not both") }
                reader = try Self.issuer(i, line: line)
            case ("issuer", _):
                throw .invalidRule(line: line, "issuer must be a string")
            case ("doctype", .string(let d)):
                guard !d.isEmpty else { throw .invalidRule(line: line, "doctype is empty") }
                docType = d
            case ("allow", .strings(let items)):
                allow = try Self.allow(items, line: line)
            case ("reader", _), ("doctype", _):
                throw .invalidRule(line: line, "\(key) must be a string")
            case ("allow", _):
                throw .invalidRule(line: line, "allow must be an array of strings")
            default:
                throw .invalidRule(line: line, "unknown key \(key) (a rule has reader or issuer, doctype and allow)")
            }
        }
        guard let reader else { throw .invalidRule(line: table.line, "missing reader (or issuer)") }
        guard let docType else { throw .invalidRule(line: table.line, "missing doctype") }
        // An issuer rule accepts a credential whole; allow is for reader rules.
        if reader.isIssuerRule, allow == nil { allow = .all }
        guard let allow else { throw .invalidRule(line: table.line, "missing allow") }
        self.init(reader: reader, docType: docType, allow: allow, line: table.line)
    }

    /// `reader = "trusted" | "any" | "anchor:<path>"`.
    private static func reader(_ r: String, line: Int, baseDirectory: URL) throws(PolicyError) -> ReaderMatch {
        if r == "trusted" { return .trusted }
        if r == "any" { return .any }
        guard r.hasPrefix("anchor:") else {
            throw .invalidRule(line: line, "reader must be \"trusted\", \"any\" or \"anchor:<path>\", not \"\(r)\"")
        }
        let path = String(r.dropFirst("anchor:".count))
        let url = path.hasPrefix("/") ? URL(fileURLWithPath: path) : baseDirectory.appendingPathComponent(path)
        let pem: String
        do {
            pem = try BoundedFile.readText(url.path, limit: InputLimit.certificates, what: "anchor certificate")
        } catch {
            throw .invalidRule(line: line, error.description)
        }
        guard let cert = (try? Certificate.parsePEM(pem))?.first else {
            throw .invalidRule(line: line, "\(url.path) holds no PEM certificate")
        }
        return .anchor(cert, path: url.path)
    }

    /// `issuer = "any" | "https://..."`.
    private static func issuer(_ i: String, line: Int) throws(PolicyError) -> ReaderMatch {
        if i == "any" { return .anyIssuer }
        guard i.hasPrefix("https://"), i.count > "https://".count else {
            throw .invalidRule(line: line, "issuer must be \"any\" or an https Credential Issuer URL, not \"\(i)\"")
        }
        return .issuer(i)
    }

    /// `allow = ["*"]`, or `"namespace:element"` entries and SD-JWT VC claim paths.
    private static func allow(_ items: [String], line: Int) throws(PolicyError) -> Allow {
        if items == ["*"] { return .all }
        var ids = Set<ElementID>()
        for item in items {
            guard !item.isEmpty else { throw .invalidRule(line: line, "an allow entry is empty") }
            // No colon: an SD-JWT VC claim path (the rule's doctype is then a vct).
            guard let colon = item.lastIndex(of: ":") else {
                ids.insert(ElementID(claimPath: item))
                continue
            }
            guard colon != item.startIndex, item.index(after: colon) != item.endIndex else {
                throw .invalidRule(
                    line: line,
                    "allow entries are \"namespace:element\", an SD-JWT VC claim path "
                        + "(\"address.locality\") or \"*\", not \"\(item)\"")
            }
            ids.insert(ElementID(String(item[..<colon]), String(item[item.index(after: colon)...])))
        }
        return .elements(ids)
    }
}

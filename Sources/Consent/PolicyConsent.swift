import BoundedFile
import Foundation
import MdocCrypto

/// Why a policy file could not be used.
public enum PolicyError: Error, Sendable, Equatable, CustomStringConvertible {
    case syntax(line: Int, String)
    case invalidRule(line: Int, String)
    case unreadable(path: String, String)

    public var description: String {
        switch self {
        case .syntax(let line, let s): return "policy file line \(line): \(s)"
        case .invalidRule(let line, let s): return "policy rule at line \(line): \(s)"
        case .unreadable(_, let s): return s
        }
    }
}

/// One policy rule: which readers, which doc type, which elements.
public struct PolicyRule: Sendable {
    public enum ReaderMatch: Sendable {
        /// A reader trusted by the configured reader roots.
        case trusted
        /// Any reader, authenticated or not.
        case any
        /// A reader whose valid signature and certificate chain lead to this anchor.
        case anchor(Certificate, path: String)
        /// Issuance only (`issuer = "https://..."`): an offer from this Credential Issuer.
        case issuer(String)
        /// Issuance only (`issuer = "any"`): an offer from any issuer (its TLS certificate
        /// verified, as always).
        case anyIssuer

        /// Whether the rule is about issuers (offers) rather than readers (requests).
        public var isIssuerRule: Bool {
            switch self {
            case .issuer, .anyIssuer: return true
            case .trusted, .any, .anchor: return false
            }
        }
    }

    public enum Allow: Sendable, Equatable {
        case all
        case elements(Set<ElementID>)
    }

    public var reader: ReaderMatch
    /// A doc type, or "*" for any.
    public var docType: String
    public var allow: Allow
    public var line: Int
}

/// Kiosk consent: ordered rules from a TOML file, first match wins per document, no match
/// declines. See docs/kiosk-policy.md.
public struct PolicyConsent: ConsentPrompt {
    public let rules: [PolicyRule]
    private let now: @Sendable () -> Date

    public init(rules: [PolicyRule], now: @escaping @Sendable () -> Date = { Date() }) {
        self.rules = rules
        self.now = now
    }

    /// Reads a policy file; `anchor:` paths are relative to the file's directory.
    public init(path: String, now: @escaping @Sendable () -> Date = { Date() }) throws(PolicyError) {
        let text: String
        do {
            text = try BoundedFile.readText(path, limit: InputLimit.configuration, what: "policy file")
        } catch {
            throw .unreadable(path: path, error.description)
        }
        let base = URL(fileURLWithPath: path).deletingLastPathComponent()
        try self.init(text: text, baseDirectory: base, now: now)
    }

    public init(text: String, baseDirectory: URL, now: @escaping @Sendable () -> Date = { Date() }) throws(PolicyError)
    {
        var rules: [PolicyRule] = []
        let tables: [ConfigFileParser.Table]
        do {
            tables = try ConfigFileParser.parse(text, tableName: "rule")
        } catch {
            throw .syntax(line: error.line, error.message)
        }
        for table in tables {
            rules.append(try Self.rule(table, baseDirectory: baseDirectory))
        }
        self.init(rules: rules, now: now)
    }

    private static func rule(_ table: ConfigFileParser.Table, baseDirectory: URL) throws(PolicyError) -> PolicyRule {
        var reader: PolicyRule.ReaderMatch?
        var docType: String?
        var allow: PolicyRule.Allow?
        for (key, value, line) in table.entries {
            switch (key, value) {
            case ("reader", .string(let r)):
                guard reader == nil else { throw .invalidRule(line: line, "a rule has reader or issuer, not both") }
                if r == "trusted" {
                    reader = .trusted
                } else if r == "any" {
                    reader = .any
                } else if r.hasPrefix("anchor:") {
                    let path = String(r.dropFirst("anchor:".count))
                    let url =
                        path.hasPrefix("/") ? URL(fileURLWithPath: path) : baseDirectory.appendingPathComponent(path)
                    let pem: String
                    do {
                        pem = try BoundedFile.readText(
                            url.path, limit: InputLimit.certificates, what: "anchor certificate")
                    } catch {
                        throw .invalidRule(line: line, error.description)
                    }
                    guard let cert = (try? Certificate.parsePEM(pem))?.first else {
                        throw .invalidRule(line: line, "\(url.path) holds no PEM certificate")
                    }
                    reader = .anchor(cert, path: url.path)
                } else {
                    throw .invalidRule(
                        line: line, "reader must be \"trusted\", \"any\" or \"anchor:<path>\", not \"\(r)\"")
                }
            case ("issuer", .string(let i)):
                guard reader == nil else { throw .invalidRule(line: line, "a rule has reader or issuer, not both") }
                if i == "any" {
                    reader = .anyIssuer
                } else if i.hasPrefix("https://"), i.count > "https://".count {
                    reader = .issuer(i)
                } else {
                    throw .invalidRule(
                        line: line, "issuer must be \"any\" or an https Credential Issuer URL, not \"\(i)\"")
                }
            case ("issuer", _):
                throw .invalidRule(line: line, "issuer must be a string")
            case ("doctype", .string(let d)):
                guard !d.isEmpty else { throw .invalidRule(line: line, "doctype is empty") }
                docType = d
            case ("allow", .strings(let items)):
                if items == ["*"] {
                    allow = .all
                } else {
                    var ids = Set<ElementID>()
                    for item in items {
                        guard !item.isEmpty else {
                            throw .invalidRule(line: line, "an allow entry is empty")
                        }
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
                    allow = .elements(ids)
                }
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
        return PolicyRule(reader: reader, docType: docType, allow: allow, line: table.line)
    }

    public func decide(_ request: ConsentRequest) async -> ConsentDecision {
        decideNow(request)
    }

    /// The decision, synchronously (the policy never waits for anyone).
    public func decideNow(_ request: ConsentRequest) -> ConsentDecision {
        var approved: [String: Set<ElementID>] = [:]
        for doc in request.documents where doc.credentialID != nil {
            guard let rule = rules.first(where: { matches($0, doc, channel: request.channel) }) else { continue }
            if request.channel == .issuance {
                // An offer is accepted whole: every claim of the credential comes with it.
                approved[doc.docType] = Set(doc.elements.map(\.id))
                continue
            }
            let offered = doc.elements.filter(\.available).map(\.id)
            let granted: Set<ElementID>
            switch rule.allow {
            case .all: granted = Set(offered)
            case .elements(let ids): granted = Set(offered).intersection(ids)
            }
            if !granted.isEmpty { approved[doc.docType] = granted }
        }
        return approved.isEmpty ? .decline : .approve(approved)
    }

    /// The first rule that matches a document, for logs and tests.
    public func matchingRule(_ doc: DocumentRequest, channel: PresentationChannel = .ble) -> PolicyRule? {
        rules.first { matches($0, doc, channel: channel) }
    }

    private func matches(_ rule: PolicyRule, _ doc: DocumentRequest, channel: PresentationChannel) -> Bool {
        guard rule.docType == "*" || rule.docType == doc.docType else { return false }
        // Reader rules answer presentations, issuer rules offers; never the other way round.
        guard rule.reader.isIssuerRule == (channel == .issuance) else { return false }
        switch rule.reader {
        case .anyIssuer:
            return true
        case .issuer(let identifier):
            return doc.requester.identifier.map { Self.sameIssuer($0, identifier) } ?? false
        case .any:
            return true
        case .trusted:
            return doc.requester.authentication.isTrusted
        case .anchor(let anchor, _):
            // The signature must have verified (trusted or merely untrusted), and the chain
            // must lead to this anchor now.
            switch doc.requester.authentication {
            case .trusted, .untrusted: break
            case .unauthenticated, .invalid: return false
            }
            guard
                let chain = try? doc.requester.certificateChain.map({ (der) throws(CryptoError) in
                    try Certificate(der: der)
                }),
                !chain.isEmpty
            else { return false }
            return CertificateChainValidator.validate(chain: chain, anchors: [anchor], at: now()).isValid
        }
    }

    /// Issuer identifiers compare as strings, a trailing slash aside.
    private static func sameIssuer(_ a: String, _ b: String) -> Bool {
        func trimmed(_ s: String) -> Substring {
            var t = Substring(s)
            while t.hasSuffix("/") { t.removeLast() }
            return t
        }
        return trimmed(a) == trimmed(b)
    }
}

import BoundedFile
import ConfigFile
import Consent
import FoundationEssentials
import MdocCrypto
import OAuthWeb

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
            rules.append(try PolicyRule(table, baseDirectory: baseDirectory))
        }
        self.init(rules: rules, now: now)
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
            return doc.requester.identifier.map { IssuerIdentifier.same($0, identifier) } ?? false
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
}

import BoundedFile
import ConfigFile
import FoundationEssentials
import JOSE
import MdocCrypto
import OpenID4VP

/// What is wrong with a pre-registered verifiers file.
public enum PreRegisteredVerifierFileError: Error, Sendable, Equatable, CustomStringConvertible {
    case unreadable(path: String, String)
    case syntax(line: Int, String)
    case invalidEntry(line: Int, String)

    public var description: String {
        switch self {
        case .unreadable(_, let why): return why
        case .syntax(let line, let why): return "verifiers file line \(line): \(why)"
        case .invalidEntry(let line, let why): return "verifier at line \(line): \(why)"
        }
    }
}

/// Reads the verifiers the wallet knows in advance (OpenID4VP 1.0 section 5.9.2: a
/// `client_id` without a prefix) from a file in the configuration TOML subset:
///
/// ```toml
/// [[verifier]]
/// client_id = "verifier.example.org"
/// name = "Example Verifier"
/// response_uris = ["https://verifier.example.org/response"]
/// jwk = "verifier-signing.jwk"      # optional: public JWK its Request Objects are signed with
/// trust_anchors = ["verifier-ca.pem"]  # optional: roots of the x5c chain its requests carry
/// ```
///
/// Paths are relative to the file. A verifier with `jwk` or `trust_anchors` must sign its
/// requests; one with neither may send them unsigned. Unknown keys, a private JWK, a
/// duplicate `client_id` or a `client_id` with a prefix are refused with the line.
public enum PreRegisteredVerifierFile {
    public static func load(path: String) throws(PreRegisteredVerifierFileError) -> [PreRegisteredVerifier] {
        let text: String
        do {
            text = try BoundedFile.readText(path, limit: InputLimit.configuration, what: "verifiers file")
        } catch {
            throw .unreadable(path: path, error.description)
        }
        return try parse(text, baseDirectory: URL(fileURLWithPath: path).deletingLastPathComponent())
    }

    public static func parse(_ text: String, baseDirectory: URL) throws(PreRegisteredVerifierFileError)
        -> [PreRegisteredVerifier]
    {
        let tables: [ConfigFileParser.Table]
        do {
            tables = try ConfigFileParser.parse(text, tableName: "verifier")
        } catch {
            throw .syntax(line: error.line, error.message)
        }
        var verifiers: [PreRegisteredVerifier] = []
        for table in tables {
            let verifier = try entry(table, baseDirectory: baseDirectory)
            guard !verifiers.contains(where: { $0.clientID == verifier.clientID }) else {
                throw .invalidEntry(line: table.line, "client_id \(verifier.clientID) is registered twice")
            }
            verifiers.append(verifier)
        }
        return verifiers
    }

    private static func entry(_ table: ConfigFileParser.Table, baseDirectory: URL)
        throws(PreRegisteredVerifierFileError) -> PreRegisteredVerifier
    {
        var clientID: String?
        var name: String?
        var responseURIs: [String]?
        var key: JWK?
        var anchors: [Certificate] = []
        for (k, value, line) in table.entries {
            switch (k, value) {
            case ("client_id", .string(let id)):
                guard !id.isEmpty else { throw .invalidEntry(line: line, "client_id is empty") }
                if id.contains(":"), let prefix = id.split(separator: ":", maxSplits: 1).first,
                    let known = ClientIdentifier.Prefix(rawValue: String(prefix)), known != .preRegistered
                {
                    throw .invalidEntry(
                        line: line,
                        "client_id has the prefix \(prefix): only a client_id without prefix is pre-registered")
                }
                clientID = id
            case ("name", .string(let n)):
                guard !n.isEmpty else { throw .invalidEntry(line: line, "name is empty") }
                name = n
            case ("response_uris", .strings(let uris)):
                guard !uris.isEmpty else { throw .invalidEntry(line: line, "response_uris is empty") }
                for uri in uris where !uri.lowercased().hasPrefix("https://") {
                    throw .invalidEntry(line: line, "response_uris must be https URLs, not \(uri)")
                }
                responseURIs = uris
            case ("jwk", .string(let file)):
                let url = resolve(file, baseDirectory)
                let json: String
                do {
                    json = try BoundedFile.readText(url.path, limit: InputLimit.key, what: "JWK file")
                } catch {
                    throw .invalidEntry(line: line, error.description)
                }
                do {
                    key = try JWK(jsonText: json)
                } catch {
                    throw .invalidEntry(line: line, "\(url.path) is not a usable JWK: \(error)")
                }
                if key?.hasPrivateKey == true {
                    throw .invalidEntry(
                        line: line, "\(url.path) holds a private key: register the verifier's public key only")
                }
            case ("trust_anchors", .strings(let files)):
                for file in files {
                    let url = resolve(file, baseDirectory)
                    guard
                        let pem = try? BoundedFile.readText(
                            url.path, limit: InputLimit.certificates, what: "trust anchor"),
                        let certificates = try? Certificate.parsePEM(pem), !certificates.isEmpty
                    else {
                        throw .invalidEntry(line: line, "\(url.path) holds no readable PEM certificate")
                    }
                    anchors += certificates
                }
            case ("client_id", _), ("name", _), ("jwk", _):
                throw .invalidEntry(line: line, "\(k) must be a string")
            case ("response_uris", _), ("trust_anchors", _):
                throw .invalidEntry(line: line, "\(k) must be an array of strings")
            default:
                throw .invalidEntry(
                    line: line, "unknown key \(k) (a verifier has client_id, name, response_uris, jwk, trust_anchors)")
            }
        }
        guard let clientID else { throw .invalidEntry(line: table.line, "missing client_id") }
        guard let responseURIs else { throw .invalidEntry(line: table.line, "missing response_uris") }
        return PreRegisteredVerifier(
            clientID: clientID, name: name ?? clientID, responseURIs: responseURIs, publicKey: key,
            trustAnchors: anchors)
    }

    private static func resolve(_ path: String, _ base: URL) -> URL {
        path.hasPrefix("/") ? URL(fileURLWithPath: path) : base.appendingPathComponent(path)
    }
}

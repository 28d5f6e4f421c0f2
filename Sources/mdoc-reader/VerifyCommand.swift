import ArgumentParser
import Base64
import CBOR
import CommandLineSupport
import Foundation
import ISO18013
import MdocCrypto
import Presentation
import PrintableText

/// Verifies a captured DeviceResponse offline.
struct VerifyCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "verify",
        abstract:
            "Verify a captured DeviceResponse: issuer signature and chain, digests, validity, device authentication.",
        discussion: """
            Exits 0 when every document verifies, 1 when something does not, 2 on bad input. A document whose \
            MSO carries a status reference has its Token Status List fetched (or taken from --status-list) and \
            checked: invalid or suspended makes it not valid; a list that cannot be had or verified gives \
            status unknown (not valid only with --require-status).
            """)

    @Argument(help: "The DeviceResponse: CBOR, or its hex or base64url text.")
    var file: String

    @Option(help: "The SessionTranscript (CBOR, tagged or not, or hex/base64url text).")
    var transcript: String

    @Option(
        name: .customLong("trust-anchor"),
        help: "IACA certificate(s) (PEM) the document signer must chain to. Repeatable.")
    var trustAnchors: [String] = []

    @OptionGroup var vical: VICALOptions

    @OptionGroup var status: StatusOptions

    @Option(help: "Verification time (RFC 3339), default now.")
    var at: String?

    @Option(
        name: .customLong("reader-key"), help: "The reader's ephemeral private key (PEM): needed to check deviceMac.")
    var readerKey: String?

    @Flag(help: "Print the result as JSON.")
    var json = false

    func run() async throws {
        do {
            let response = try InputFile.bytes(file, what: "DeviceResponse")
            let transcript = try SessionTranscript(bytes: InputFile.bytes(self.transcript, what: "SessionTranscript"))
            guard !trustAnchors.isEmpty || !vical.isEmpty else {
                throw ReaderCLIError("give at least one --trust-anchor (the IACA certificate) or --vical")
            }
            var anchors: [Certificate] = []
            for path in trustAnchors { anchors += try InputFile.certificates(path) }
            var time = Date()
            if let at {
                guard let t = RFC3339.date(from: at) else {
                    throw ReaderCLIError("--at \(at) is not an RFC 3339 date-time")
                }
                time = t
            }
            let json = json
            let trust = try vical.issuerTrust(anchors: anchors, at: time) { json ? Output.warn($0) : Output.line($0) }
            let key = try readerKey.map { try PrivateKey(pem: InputFile.text($0)) }
            let verified = try ResponseVerifier.verify(
                response, transcript: transcript, issuerTrust: trust, eReaderKey: key, at: time)
            let report = await status.report(verified, resolver: try status.makeResolver(), at: time)
            print(json ? try report.json() : report.text())
            if !report.valid { throw ExitCode(1) }
        } catch let e as ExitCode {
            throw e
        } catch {
            Output.warn("mdoc-reader: \(RemoteText.printable(String(describing: error), limit: 2000))")
            throw ExitCode(2)
        }
    }
}

struct ReaderCLIError: Error, CustomStringConvertible {
    let description: String
    init(_ d: String) { description = d }
}

/// Reads the files the reader commands take.
enum InputFile {
    static func text(_ path: String) throws -> String {
        guard let data = FileManager.default.contents(atPath: path) else { throw ReaderCLIError("cannot read \(path)") }
        return String(decoding: data, as: UTF8.self)
    }

    /// Binary CBOR as is; text files holding hex or base64url are decoded.
    static func bytes(_ path: String, what: String) throws -> [UInt8] {
        guard let data = FileManager.default.contents(atPath: path) else {
            throw ReaderCLIError("cannot read \(what) file \(path)")
        }
        let raw = [UInt8](data)
        if (try? CBOR.decode(raw)) != nil { return raw }
        let text = String(decoding: raw, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
        if let decoded = Hex.decode(text) { return decoded }
        if let decoded = Base64URL.decode(allowingPadding: text) { return decoded }
        throw ReaderCLIError("\(path) holds neither CBOR nor hex or base64url text of the \(what)")
    }

    static func certificates(_ path: String) throws -> [Certificate] {
        try CertificateFile.read(path, what: "certificate")
    }
}

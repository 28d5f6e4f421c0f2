import ArgumentParser
import CommandLineSupport
import Foundation
import MdocCrypto
import MdocIssuer
import TokenStatusList

/// `mdoc-issuer status-list`: a signed Status List Token (CWT or JWT) for tests.
struct StatusListCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "status-list",
        abstract: "Make a Status List Token (draft-ietf-oauth-status-list) as a CWT or a JWT.",
        discussion: """
            Every entry is 0 (valid) but those given with --set INDEX=VALUE (1 invalid, 2 suspended, ...). \
            Signed by the test PKI's status list signer (--pki DIR: status-list.pem and status-list.key.pem, \
            made by `mdoc-issuer status-signer`) or by --signer-cert PEM --signer-key PEM; the signer's \
            certificate goes into the token (x5chain in the CWT's protected header, x5c in the JWT).
            """)

    @Option(help: "The token's URI (its sub): what credentials carry as status_list.uri.")
    var uri: String

    @Option(help: "cwt (application/statuslist+cwt, for mdocs) or jwt (application/statuslist+jwt, for SD-JWT VCs).")
    var format: StatusListFormat = .cwt

    @Option(help: "File to write the token to.")
    var out: String

    @Option(help: "Bits per entry: 1, 2, 4 or 8.")
    var bits: Int = 1

    @Option(help: "Number of entries in the list.")
    var size: Int = 1024

    @Option(name: .customLong("set"), help: "INDEX=VALUE: a non-zero status (repeatable).")
    var statuses: [String] = []

    @Option(help: "Directory of the test PKI holding status-list.pem and status-list.key.pem.")
    var pki: String?

    @Option(help: "PEM certificate of the signer (then --signer-key); the file's further certificates follow it.")
    var signerCert: String?

    @Option(help: "PEM private key of the signer.")
    var signerKey: String?

    @Option(help: "iat as seconds since 1970 (default: now).")
    var issuedAt: Int?

    @Option(help: "Seconds from iat to exp (0: no exp).")
    var validSeconds: Int = 86_400

    @Option(help: "ttl in seconds: how long a reader may cache the token (0: no ttl).")
    var ttl: Int = 300

    func validate() throws {
        guard StatusList.allowedBits.contains(bits) else { throw ValidationError("--bits must be 1, 2, 4 or 8") }
        guard size > 0, size <= 1 << 27 else { throw ValidationError("--size must be between 1 and 2^27") }
        guard validSeconds >= 0, ttl >= 0 else {
            throw ValidationError("--valid-seconds and --ttl must not be negative")
        }
        guard (pki != nil) != (signerCert != nil), (signerCert == nil) == (signerKey == nil) else {
            throw ValidationError("give --pki DIR, or --signer-cert PEM with --signer-key PEM")
        }
        _ = try parsedStatuses()
    }

    func parsedStatuses() throws -> [UInt64: UInt8] {
        var parsed: [UInt64: UInt8] = [:]
        for entry in statuses {
            let parts = entry.split(separator: "=", maxSplits: 1)
            guard parts.count == 2, let index = UInt64(parts[0]), let value = UInt8(parts[1]) else {
                throw ValidationError("--set takes INDEX=VALUE, e.g. 3=1")
            }
            parsed[index] = value
        }
        return parsed
    }

    func run() throws {
        let list = try StatusList(bits: bits, count: size, statuses: try parsedStatuses())
        let (signer, chain) = try loadSigner()
        let issued = issuedAt.map { Date(timeIntervalSince1970: TimeInterval($0)) } ?? Date()
        let expires = validSeconds > 0 ? issued.addingTimeInterval(TimeInterval(validSeconds)) : nil
        let ttl: UInt64? = self.ttl > 0 ? UInt64(self.ttl) : nil
        let bytes: [UInt8]
        switch format {
        case .cwt:
            bytes = try StatusListToken.signCWT(
                list, subject: uri, issuedAt: issued, expiresAt: expires, timeToLive: ttl, key: signer.key, chain: chain
            )
        case .jwt:
            bytes = Array(
                try StatusListToken.signJWT(
                    list, subject: uri, issuedAt: issued, expiresAt: expires, timeToLive: ttl, key: signer.key,
                    chain: chain
                ).utf8)
        }
        try IssuerFiles.write(bytes, to: URL(fileURLWithPath: out))
        Output.line("status list token (\(format.mediaType), \(bytes.count) bytes) written to \(out)")
        Output.line(
            "  \(list.count) entries of \(bits) bits, \(list.nonZero.count) not valid; signed by \(signer.certificate.subject)"
        )
    }

    private func loadSigner() throws -> (StatusListSigner, [Certificate]) {
        if let pki {
            let directory = URL(fileURLWithPath: pki)
            let signer = try StatusListSigner.load(
                certificate: directory.appendingPathComponent(StatusListSigner.certificateFile),
                key: directory.appendingPathComponent(StatusListSigner.keyFile))
            return (signer, [signer.certificate])
        }
        let signer = try StatusListSigner.load(
            certificate: URL(fileURLWithPath: signerCert!), key: URL(fileURLWithPath: signerKey!))
        let chain = try Certificate.parsePEM(try IssuerFiles.readText(URL(fileURLWithPath: signerCert!)))
        return (signer, chain)
    }
}

extension StatusListFormat: ExpressibleByArgument {}

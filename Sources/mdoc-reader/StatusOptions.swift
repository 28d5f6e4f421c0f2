import ArgumentParser
import CommandLineSupport
import Foundation
import MdocCrypto
import OnlineTransport
import Presentation
import PrintableText
import TokenStatusList

/// `--status-list FILE`, `--require-status`, `--tls-ca PEM`, `--status-timeout S`: how `verify`
/// and `request` check the status of each document whose MSO carries a status reference.
struct StatusOptions: ParsableArguments {
    @Option(
        name: .customLong("status-list"),
        help: ArgumentHelp(
            "A Status List Token (CWT or JWT) supplied offline: used for the URI in its sub, not fetched. Repeatable.",
            valueName: "file"))
    var statusLists: [String] = []

    @Flag(help: "A document whose status is not known to be valid (unknown, or no status reference) is not valid.")
    var requireStatus = false

    @Option(
        name: .customLong("tls-ca"),
        help: ArgumentHelp(
            "CA certificate(s) trusted for HTTPS status list servers besides the system trust store. Repeatable.",
            valueName: "pem"))
    var tlsCAs: [String] = []

    @Option(help: ArgumentHelp("Seconds a status list fetch may take.", valueName: "seconds"))
    var statusTimeout: Int = 10

    func validate() throws {
        guard statusTimeout > 0 else { throw ValidationError("--status-timeout must be positive") }
    }

    /// The report of `verified`, with the status of each document checked at `time` through
    /// `resolver` (``makeResolver()``: made before the session, so a bad `--status-list` file
    /// stops the command before any Bluetooth).
    func report(
        _ verified: VerifiedResponse, resolver: StatusListResolver, requireDocuments: Bool = false,
        at time: Date = Date()
    ) async -> ResultReport {
        var report = ResultReport(verified, requireDocuments: requireDocuments)
        let references = verified.documents.map(DocumentStatus.reference)
        guard references.contains(where: { $0 != nil }) || requireStatus else { return report }
        var statuses: [DocumentStatus] = []
        for (document, reference) in zip(verified.documents, references) {
            statuses.append(await DocumentStatus.check(document, reference: reference, resolver: resolver, at: time))
        }
        report.apply(statuses, requireStatus: requireStatus)
        return report
    }

    /// The resolver of these options: the offline tokens read (a file that is not a token is
    /// bad input), the TLS trust and the time limits.
    func makeResolver() throws -> StatusListResolver {
        var offline: [StatusListResolver.OfflineToken] = []
        for path in statusLists {
            guard let data = FileManager.default.contents(atPath: path) else {
                throw ReaderCLIError("cannot read status list token file \(path)")
            }
            let bytes = [UInt8](data)
            do throws(StatusListError) {
                offline.append(try StatusListResolver.OfflineToken(bytes: bytes, source: path))
            } catch {
                throw ReaderCLIError("\(path): \(error)")
            }
        }
        var cas: [Certificate] = []
        for path in tlsCAs { cas += try InputFile.certificates(path) }
        let limits = StatusListResolver.Limits(
            connectTimeout: .seconds(min(5, statusTimeout)), requestTimeout: .seconds(statusTimeout))
        return try StatusListResolver(tlsCAs: cas, limits: limits, offlineTokens: offline)
    }
}

/// The status of one document as the reader reports it.
struct DocumentStatus: Sendable {
    /// nil: the MSO carries no status reference.
    var reference: StatusReference?
    var check: StatusCheck?

    /// The MSO's status reference; nil when there is none or the MSO was not read.
    static func reference(_ document: VerifiedDocument) -> StatusReference? {
        guard let claim = document.issuer.mso?.status else { return nil }
        return try? StatusReference(statusClaim: claim)
    }

    /// Checks `reference` against the anchor that authenticated the document's issuer.
    static func check(
        _ document: VerifiedDocument, reference: StatusReference?, resolver: StatusListResolver, at time: Date
    ) async -> DocumentStatus {
        if document.issuer.mso?.status != nil, reference == nil {
            return DocumentStatus(reference: nil, check: .unknown(reason: "the MSO's status reference is malformed"))
        }
        guard let reference else { return DocumentStatus(reference: nil, check: nil) }
        guard let anchor = document.issuer.trustAnchor, document.issuer.isValid else {
            return DocumentStatus(
                reference: reference, check: .unknown(reason: "the issuer is not authenticated: status not checked"))
        }
        let check = await resolver.check(reference, format: .cwt, trustAnchors: [anchor], at: time)
        return DocumentStatus(reference: reference, check: check)
    }

    /// "valid", "invalid", "suspended", "unknown", or nil without a reference.
    var word: String? {
        guard let check else { return nil }
        switch check.status {
        case .valid?: return "valid"
        case .invalid?: return "invalid"
        case .suspended?: return "suspended"
        case .other?, nil: return "unknown"
        }
    }

    /// Why the status is unknown, or when a known one was checked.
    var detail: String? {
        switch check {
        case .unknown(let reason)?: return reason
        case .known(.other(let value), _)?:
            return "status value \(value) is application-specific or reserved"
        case .known(_, let checkedAt)?: return "checked \(ISO8601DateFormatter().string(from: checkedAt))"
        case nil: return nil
        }
    }
}

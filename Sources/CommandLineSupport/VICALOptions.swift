import ArgumentParser
import BoundedFile
import FoundationEssentials
import ISO18013
import MdocCrypto
import PrintableText
import VICAL

/// `--vical FILE --vical-anchor PEM` (both repeatable): issuer trust from signed VICALs, each
/// IACA trusted only for the docTypes its list names. Shared by mdoc-reader and mdoc-holder.
public struct VICALOptions: ParsableArguments {
    @Option(
        name: .customLong("vical"),
        help: ArgumentHelp(
            "A VICAL (ISO 18013-5 Annex C.1.7, COSE_Sign1): its IACAs become trust anchors for their docTypes. "
                + "Repeatable; needs --vical-anchor.", valueName: "file"))
    public var files: [String] = []

    @Option(
        name: .customLong("vical-anchor"),
        help: ArgumentHelp("A root (PEM or DER) a VICAL signer must chain to. Repeatable.", valueName: "pem"))
    public var anchors: [String] = []

    public init() {}

    /// Whether any VICAL was given.
    public var isEmpty: Bool { files.isEmpty }

    /// Reads and verifies every VICAL at `time`; `report` gets one line per accepted list
    /// (`VICAL <provider> <date>: N IACAs`). Any refused list refuses them all.
    public func scopedAnchors(at time: Date, report: (String) -> Void) throws(CommandLineError)
        -> [IssuerTrust.ScopedAnchor]
    {
        guard !files.isEmpty else {
            guard anchors.isEmpty else { throw CommandLineError("--vical-anchor needs a --vical list") }
            return []
        }
        guard !anchors.isEmpty else {
            throw CommandLineError("--vical needs --vical-anchor (the root the VICAL signer chains to)")
        }
        var roots: [Certificate] = []
        for path in anchors { roots += try CertificateFile.read(path, what: "VICAL anchor") }
        var result: [IssuerTrust.ScopedAnchor] = []
        for path in files {
            let signed = try VICALFile.read(path)
            let verified: VerifiedVICAL
            do {
                verified = try signed.verify(anchors: roots, at: time)
            } catch {
                throw CommandLineError("VICAL \(path) refused: \(error)")
            }
            let anchors = verified.scopedAnchors
            report("\(RemoteText.printable(verified.source)): \(anchors.count) IACAs")
            result += anchors
        }
        return result
    }

    /// The issuer trust: `anchors` (PEM files, any docType) and the VICALs' IACAs.
    public func issuerTrust(anchors: [Certificate], at time: Date, report: (String) -> Void)
        throws(CommandLineError) -> IssuerTrust
    {
        IssuerTrust(anchors: anchors, scopedAnchors: try scopedAnchors(at: time, report: report))
    }
}

/// Reads a VICAL file, at most ``limit`` bytes.
public enum VICALFile {
    /// 8 MiB: the largest public VICAL is some 54 KB.
    public static let limit = 8 * 1024 * 1024

    public static func read(_ path: String) throws(CommandLineError) -> SignedVICAL {
        let bytes: [UInt8]
        do {
            bytes = try BoundedFile.read(path, limit: limit, what: "VICAL")
        } catch {
            throw CommandLineError(error.description)
        }
        do {
            return try SignedVICAL(bytes: bytes)
        } catch {
            throw CommandLineError("VICAL \(path) refused: \(error)")
        }
    }
}

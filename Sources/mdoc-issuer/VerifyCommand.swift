import ArgumentParser
import CBOR
import CommandLineSupport
import Foundation
import ISO18013
import MdocCrypto
import MdocIssuer

/// `mdoc-issuer verify`: issuer data authentication of a credential file against an IACA.
struct VerifyCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "verify",
        abstract: "Check a credential (issuer-signed or document form) against an IACA certificate, now.",
        discussion: "Prints the doc type, the element identifiers and whether their digests match; never values.")

    @Option(help: "Credential file written by `mdoc-issuer issue`.")
    var credential: String

    @Option(help: "PEM file with the trusted IACA certificate(s).")
    var iaca: String

    func run() throws {
        let bytes = try IssuerFiles.read(URL(fileURLWithPath: credential))
        let anchors = try Certificate.parsePEM(try IssuerFiles.readText(URL(fileURLWithPath: iaca)))
        let value = try CBOR.decode(bytes)
        var documents: [(String?, IssuerSigned)] = []
        if let list = value["documents"]?.arrayValue {
            for document in list {
                documents.append(
                    (document["docType"]?.textValue, try IssuerSigned(cbor: document["issuerSigned"] ?? .null)))
            }
        } else {
            documents.append((nil, try IssuerSigned(cbor: value)))
        }
        var allValid = true
        for (docType, issuerSigned) in documents {
            let mso = try issuerSigned.mobileSecurityObject().mso
            let result = IssuerDataAuthentication.verify(
                issuerSigned, docType: docType ?? mso.docType, trustAnchors: anchors, at: Date())
            Output.line("\(mso.docType): \(result.isValid ? "valid" : "NOT valid")")
            Output.line("  document signer: \(result.documentSigner?.subject ?? "none")")
            let validity = mso.validityInfo
            let from = RFC3339.string(from: validity.validFrom)
            Output.line("  valid \(from) .. \(RFC3339.string(from: validity.validUntil))")
            for ns in issuerSigned.nameSpaces {
                let ids = ns.items.map { item in
                    let ok = result.elements.contains {
                        $0.nameSpace == ns.name && $0.identifier == item.elementIdentifier && $0.digestMatches
                    }
                    return ok ? item.elementIdentifier : "\(item.elementIdentifier) (digest mismatch)"
                }
                Output.line("  \(ns.name): \(ids.joined(separator: ", "))")
            }
            for failure in result.failures { Output.line("  failure: \(failure)") }
            allValid = allValid && result.isValid
        }
        if !allValid { throw ExitCode.failure }
    }
}

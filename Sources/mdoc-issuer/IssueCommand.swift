import ArgumentParser
import CBOR
import CommandLineSupport
import Foundation
import ISO18013
import MdocCrypto
import MdocIssuer
import TokenStatusList

/// `mdoc-issuer issue`: signs the elements of a claims file with a test PKI's document signer.
struct IssueCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "issue",
        abstract: "Issue a credential (IssuerSigned) from a JSON claims file.",
        discussion: """
            The claims file is either the mDL form (an object of org.iso.18013.5.1 elements; all \
            mandatory mDL elements required) or the generic form {"docType": ..., "nameSpaces": \
            {namespace: {element: value}}}. The device key is given (--device-key, or --device-public-key for a \
            key held in a secure area) or made fresh \
            (--new-device-key, written with mode 0600). Only element identifiers are printed, never values.
            """)

    enum Format: String, ExpressibleByArgument, CaseIterable {
        case issuerSigned = "issuer-signed"
        case document
    }

    @Option(help: "JSON claims file.")
    var claims: String

    @Option(help: "Directory of the test PKI (as written by `mdoc-issuer pki`).")
    var pki: String

    @Option(help: "File to write the credential to.")
    var out: String

    @Option(help: "PEM file with the holder's device key (public key, or a private key whose public part is used).")
    var deviceKey: String?

    @Option(
        help: """
            PEM public key of the holder's device key (from `mdoc-holder keys create --public-key-out`): issue \
            to a key held in a secure area (a TPM) without its private key.
            """)
    var devicePublicKey: String?

    @Option(help: "Make a fresh P-256 device key and write its private key (PKCS#8 PEM, mode 0600) to this path.")
    var newDeviceKey: String?

    @Option(help: "Days the credential (MSO validUntil) stays valid, capped at the document signer's expiry.")
    var validDays: Int = 365

    @Option(
        help: """
            Output: issuer-signed (IssuerSigned CBOR) or document \
            ({version, documents: [{docType, issuerSigned}], status}).
            """)
    var format: Format = .issuerSigned

    @OptionGroup var status: StatusReferenceOptions

    func validate() throws {
        guard [deviceKey, devicePublicKey, newDeviceKey].compactMap({ $0 }).count == 1 else {
            throw ValidationError(
                "give exactly one of --device-key PEM, --device-public-key PEM and --new-device-key PATH")
        }
        guard validDays > 0 else { throw ValidationError("--valid-days must be positive") }
    }

    func run() throws {
        let claims = try MDLClaims.load(contentsOf: URL(fileURLWithPath: self.claims))
        let pki = try TestPKI.load(from: URL(fileURLWithPath: self.pki))
        let now = Date()
        let ds = pki.documentSigner
        guard ds.notBefore <= now, now < ds.notAfter else {
            throw ValidationError("the document signer \(ds.subject) is not valid now; make a new PKI")
        }
        let deviceKey: PublicKey
        var newKey: PrivateKey?
        if let path = self.deviceKey {
            deviceKey = try Self.readDeviceKey(URL(fileURLWithPath: path))
        } else if let path = devicePublicKey {
            let text = try IssuerFiles.readText(URL(fileURLWithPath: path))
            guard !text.contains("PRIVATE KEY-----") else {
                throw IssuerError.file(path: path, reason: "--device-public-key takes a public key, not a private key")
            }
            do {
                deviceKey = try PublicKey(pem: text)
            } catch {
                throw IssuerError.file(path: path, reason: "\(error)")
            }
        } else {
            let key = try PrivateKey.generate(.p256)
            newKey = key
            deviceKey = key.publicKey
        }
        var validUntil = now.addingTimeInterval(Double(validDays) * 86_400)
        var capped = false
        if validUntil > ds.notAfter {
            validUntil = ds.notAfter
            capped = true
        }
        let issued = try MdocIssuer.issue(
            claims, deviceKey: deviceKey, pki: pki, validFrom: now, validUntil: validUntil, signed: now,
            status: status.reference?.cbor)
        let bytes: [UInt8]
        switch format {
        case .issuerSigned: bytes = issued.cbor.encoded()
        case .document: bytes = MdocIssuer.documentContainer(docType: claims.docType, issuerSigned: issued)
        }
        // The new device key is written once the credential is made, before the credential itself.
        if let newKey, let path = newDeviceKey {
            try IssuerFiles.writeSecret(try newKey.pkcs8PEM(), to: URL(fileURLWithPath: path))
        }
        try IssuerFiles.write(bytes, to: URL(fileURLWithPath: out))

        Output.line("issued \(claims.docType) (\(format.rawValue), \(bytes.count) bytes) to \(out)")
        Output.line("  signed by \(ds.subject), device key \(deviceKey.curve.rawValue)")
        if let path = newDeviceKey { Output.line("  new device private key written to \(path) (mode 0600)") }
        let until = ISO8601DateFormatter().string(from: validUntil)
        Output.line("  valid until \(until)\(capped ? " (capped at the document signer's expiry)" : "")")
        if let reference = status.reference { Output.line("  status list \(reference.uri) index \(reference.index)") }
        for (nameSpace, identifiers) in claims.elementIdentifiers {
            Output.line("  \(nameSpace): \(identifiers.joined(separator: ", "))")
        }
    }

    /// A public key PEM, or a private key PEM (its public part).
    static func readDeviceKey(_ url: URL) throws -> PublicKey {
        let text = try IssuerFiles.readText(url)
        if text.contains("PRIVATE KEY-----") {
            do {
                return try PrivateKey(pem: text).publicKey
            } catch {
                throw IssuerError.file(path: url.path, reason: "\(error)")
            }
        }
        do {
            return try PublicKey(pem: text)
        } catch {
            throw IssuerError.file(path: url.path, reason: "\(error)")
        }
    }
}

import CBOR
import Foundation
import ISO18013
import MdocCrypto
import SecureArea
import TestSupport
import Testing
import Wallet

/// The standard's Annex D credential, as the wallet tests import it.
enum AnnexD {
    static let mDL = "org.iso.18013.5.1.mDL"
    /// The Annex D certificates and MSO are valid on this date (they have expired since).
    static let inValidity = RFC3339.date(from: "2021-06-01T00:00:00Z")!
    static let afterExpiry = RFC3339.date(from: "2030-01-01T00:00:00Z")!
    static let beforeValidity = RFC3339.date(from: "2019-01-01T00:00:00Z")!

    static var issuerSigned: [UInt8] { Vectors.annexD("IssuerSigned") }
    static var deviceResponse: [UInt8] { Vectors.annexD("DeviceResponse") }

    static func iaca() throws -> Certificate { try Certificate(der: Vectors.annexD("IACA_certificate")) }

    /// SDeviceKey, the key the Annex D MSO binds the credential to, as PKCS#8 PEM.
    static func deviceKeyPEM() throws -> String {
        try PrivateKey(curve: .p256, rawPrivateKey: Vectors.annexD("SDeviceKey_private_d")).pkcs8PEM()
    }

    /// documents[0] of the Annex D DeviceResponse, as a CBOR map (docType, issuerSigned,
    /// deviceSigned).
    static func document() throws -> CBOR {
        let response = try CBOR.decode(deviceResponse)
        return try #require(response["documents"]?.arrayValue?.first)
    }

    /// The IssuerSigned with one letter of family_name ("Doe") changed: the item's digest no
    /// longer matches the MSO.
    static func tamperedIssuerSigned() throws -> [UInt8] {
        var bytes = issuerSigned
        let doe: [UInt8] = [0x63, 0x44, 0x6F, 0x65]  // text(3) "Doe"
        let at = try #require(firstIndex(of: doe, in: bytes))
        bytes[at + 1] = 0x52  // "Roe"
        return bytes
    }

    /// The same credential disclosing only some elements: other bytes, still authentic.
    static func partialIssuerSigned() throws -> [UInt8] {
        let full = try IssuerSigned(bytes: issuerSigned)
        return full.disclosing(["org.iso.18013.5.1": ["family_name", "document_number"]]).cbor.encoded()
    }

    /// A pymdoccbor-style container: `{"version", "documents": [{docType, issuerSigned}], "status"}`.
    static func container(_ issuerSigned: [[UInt8]], docType: String = mDL) throws -> [UInt8] {
        let documents = try issuerSigned.map { bytes -> CBOR in
            ["docType": .text(docType), "issuerSigned": try CBOR.decode(bytes)]
        }
        let value: CBOR = ["version": "1.0", "documents": .array(documents), "status": 0]
        return value.encoded()
    }

    static func firstIndex(of needle: [UInt8], in haystack: [UInt8]) -> Int? {
        guard needle.count <= haystack.count else { return nil }
        return (0...(haystack.count - needle.count)).first { Array(haystack[$0..<($0 + needle.count)]) == needle }
    }
}

/// A fresh directory under the system temporary directory, removed on deinit.
final class TemporaryDirectory {
    let path: String

    init() throws {
        let base = FileManager.default.temporaryDirectory.path
        path = base + "/wallet-tests-" + UUID().uuidString
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
    }

    deinit {
        try? FileManager.default.removeItem(atPath: path)
    }

    func file(_ name: String) -> String { path + "/" + name }

    /// A new store in this directory.
    func store(_ name: String = "wallet.sqlite") throws -> CredentialStore {
        try CredentialStore(path: file(name), secureAreas: .inMemory)
    }
}

import CBOR
import Consent
import Foundation
import ISO18013
import MdocCrypto
import SecureArea
import Testing

@testable import Wallet

/// Listing, showing, deleting and handing out stored credentials.
struct CredentialStoreTests {
    let dir: TemporaryDirectory
    let store: CredentialStore
    let id: String

    init() throws {
        dir = try TemporaryDirectory()
        store = try dir.store()
        id = try store.import(
            fileBytes: AnnexD.issuerSigned, deviceKeyPEM: try AnnexD.deviceKeyPEM(), trustAnchors: [try AnnexD.iaca()],
            at: AnnexD.inValidity)[0]
    }

    @Test func listShowsMetadataAndElementIdentifiersNeverValues() throws {
        let list = try store.list()
        #expect(list.count == 1)
        let summary = try #require(list.first)
        #expect(summary.id == id)
        #expect(summary.docType == AnnexD.mDL)
        #expect(summary.issuerSubject?.contains("utopia ds") == true)
        #expect(summary.validFrom == RFC3339.date(from: "2020-10-01T13:30:02Z"))
        #expect(summary.validUntil == RFC3339.date(from: "2021-10-01T13:30:02Z"))
        #expect(abs(summary.importedAt.timeIntervalSinceNow) < 60)
        #expect(summary.elements.contains("org.iso.18013.5.1:family_name"))
        #expect(summary.elements.contains("org.iso.18013.5.1:portrait"))
        #expect(summary.elements.allSatisfy { $0.contains(":") })
        let json = String(decoding: try JSONEncoder().encode(list), as: UTF8.self)
        #expect(!json.contains("Doe"))
    }

    @Test func showGivesValuesOnlyWhenAsked() throws {
        let plain = try store.show(id: id)
        #expect(plain.docType == AnnexD.mDL)
        #expect(plain.digestAlgorithm == "SHA-256")
        #expect(plain.deviceKeyCurve == "P-256")
        #expect(plain.elements.allSatisfy { $0.value == nil })
        #expect(plain.elements.map(\.id) == (try store.list()[0].elements))

        let detail = try store.show(id: id, includeValues: true)
        let values = Dictionary(uniqueKeysWithValues: detail.elements.map { ($0.id, $0.value ?? "") })
        #expect(values["org.iso.18013.5.1:family_name"] == "\"Doe\"")
        // Byte strings are elided to their length.
        let portrait = try #require(values["org.iso.18013.5.1:portrait"])
        #expect(portrait.hasPrefix("h'...' ("), "\(portrait)")
        #expect(portrait.hasSuffix(" bytes)"))
    }

    @Test func unknownIDsAreRefused() throws {
        #expect(throws: WalletError.unknownCredential(id: "0000000000000000")) {
            try store.show(id: "0000000000000000")
        }
        #expect(throws: WalletError.unknownCredential(id: "nope")) { try store.credential(id: "nope") }
        #expect(throws: WalletError.unknownCredential(id: "nope")) { try store.delete(id: "nope") }
    }

    @Test func deleteRemovesTheCredential() throws {
        try store.delete(id: id)
        #expect(try store.list().isEmpty)
        #expect(throws: WalletError.unknownCredential(id: id)) { try store.delete(id: id) }
    }

    @Test func credentialsAreHandedOutReadyToPresent() throws {
        let stored = try store.credential(id: id)
        #expect(stored.id == id)
        #expect(stored.issuerSigned == (try IssuerSigned(bytes: AnnexD.issuerSigned)))
        let mso = try stored.issuerSigned.mobileSecurityObject().mso
        #expect(stored.deviceKey.publicKey == (try mso.deviceKey.publicKey()))
        #expect(!"\(stored)".contains("PRIVATE"))
        #expect(stored.elementIDs.contains(ElementID("org.iso.18013.5.1", "family_name")))
        #expect(stored.elementIDs.count == stored.elements.count)
        #expect(try store.credentials(docType: AnnexD.mDL).map(\.id) == [id])
        #expect(try store.credentials(docType: "org.example.other").isEmpty)
        #expect(try store.credentials().count == 1)
    }

    @Test func theDeviceKeyIsInTheSoftwareAreaAndSignsForTheMSOKey() throws {
        let stored = try store.credential(id: id)
        let key = try #require(stored.deviceKey as? SecureAreaKey)
        #expect(key.stored.area == .software)
        let mso = try stored.issuerSigned.mobileSecurityObject().mso
        let message = Array("to be signed".utf8)
        let signature = try key.signature(over: message, algorithm: .es256)
        #expect(try mso.deviceKey.publicKey().isValidSignature(signature, for: message, algorithm: .es256))
    }
}

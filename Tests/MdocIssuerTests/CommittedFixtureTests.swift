import CBOR
import COSE
import Foundation
import ISO18013
import MdocCrypto
import MdocIssuer
import TestSupport
import Testing

/// The committed set under Fixtures/ (made by Tests/Support/make-fixtures.sh).
struct CommittedFixtureTests {
    static func iaca() throws -> Certificate {
        try Certificate.parsePEM(
            String(decoding: try Data(contentsOf: IssuerFixtures.url("pki/iaca.pem")), as: UTF8.self))[0]
    }

    static func deviceKey() throws -> PrivateKey {
        try PrivateKey(
            pem: String(decoding: try Data(contentsOf: IssuerFixtures.url("mdl-device-key.pem")), as: UTF8.self))
    }

    @Test func committedMDLVerifiesAgainstTheCommittedIACA() throws {
        let issued = try IssuerSigned(bytes: [UInt8](try Data(contentsOf: IssuerFixtures.url("mdl.cbor"))))
        let result = IssuerDataAuthentication.verify(
            issued, docType: MDLClaims.docType, trustAnchors: [try Self.iaca()], at: Date())
        #expect(result.isValid, "\(result.failures)")
        let mso = try #require(result.mso)
        #expect(mso.deviceKey == COSEKey(try Self.deviceKey().publicKey))
        // Still valid in five years: the fixtures do not expire soon.
        let later = Date().addingTimeInterval(5 * 365 * 86_400)
        #expect(mso.validityInfo.validUntil > later)
        #expect(
            IssuerDataAuthentication.verify(
                issued, docType: MDLClaims.docType, trustAnchors: [try Self.iaca()], at: later
            ).isValid)
    }

    @Test func committedMDLHoldsTheCommittedClaims() throws {
        let issued = try IssuerSigned(bytes: [UInt8](try Data(contentsOf: IssuerFixtures.url("mdl.cbor"))))
        let claims = try IssuerFixtures.mdlClaims()
        let items = try #require(issued.nameSpaces.first { $0.name == MDLClaims.nameSpace }).items
        #expect(items.map(\.elementIdentifier) == claims.nameSpaces[0].1.map(\.0))
        #expect(items.map(\.elementValue) == claims.nameSpaces[0].1.map(\.1))
        for element in MDLClaims.mandatoryElements + ["age_over_18", "age_over_21", "age_over_65"] {
            #expect(items.contains { $0.elementIdentifier == element }, "\(element) missing")
        }
        let portrait = try #require(items.first { $0.elementIdentifier == "portrait" }?.elementValue.bytesValue)
        #expect(portrait == [UInt8](try Data(contentsOf: IssuerFixtures.url("portrait.jpg"))))
        #expect(portrait == Vectors.annexD("DeviceResponse_portrait_jpeg"))
        let privileges = try #require(items.first { $0.elementIdentifier == "driving_privileges" }?.elementValue)
        #expect(privileges.arrayValue?.count == 2)
    }

    @Test func committedDocumentContainerVerifiesWithTheSameDeviceKey() throws {
        let value = try CBOR.decode([UInt8](try Data(contentsOf: IssuerFixtures.url("mdl-document.cbor"))))
        #expect(value["version"] == "1.0")
        #expect(value["status"] == 0)
        let document = try #require(value["documents"]?.arrayValue?.first)
        #expect(document["docType"] == .text(MDLClaims.docType))
        let issued = try IssuerSigned(cbor: try #require(document["issuerSigned"]))
        let result = IssuerDataAuthentication.verify(
            issued, docType: MDLClaims.docType, trustAnchors: [try Self.iaca()], at: Date())
        #expect(result.isValid, "\(result.failures)")
        #expect(result.mso?.deviceKey == COSEKey(try Self.deviceKey().publicKey))
    }

    @Test func committedPKILoadsAndChains() throws {
        let pki = try TestPKI.load(from: IssuerFixtures.url("pki"))
        let now = Date()
        let later = now.addingTimeInterval(5 * 365 * 86_400)
        #expect(CertificateChainValidator.validate(chain: [pki.documentSigner], anchors: [pki.iaca], at: later).isValid)
        #expect(CertificateChainValidator.validate(chain: [pki.reader], anchors: [pki.readerCA], at: later).isValid)
        #expect(pki.iaca.notAfter > now.addingTimeInterval(15 * 365 * 86_400))
        #expect(pki.readerCA.notAfter > now.addingTimeInterval(15 * 365 * 86_400))
        #expect(pki.documentSigner.extendedKeyUsage == [IssuerDataAuthentication.documentSignerEKU])
        #expect(pki.reader.extendedKeyUsage == [ReaderAuthentication.readerAuthEKU])
        let signer = try IssuerSigned(bytes: [UInt8](try Data(contentsOf: IssuerFixtures.url("mdl.cbor"))))
            .issuerAuth.x5chain
        #expect(signer == [pki.documentSigner.der])
    }

    @Test func committedReaderPassesReaderAuthentication() throws {
        let pki = try TestPKI.load(from: IssuerFixtures.url("pki"))
        try ReaderProfileTests.expectTrustedReader(pki)
    }
}

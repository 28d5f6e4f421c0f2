import Foundation
import MdocCrypto
import TestSupport
import Testing

struct CertificateTests {
    @Test func readsTheAnnexDReaderRoot() throws {
        let root = try Fixtures.annexDCertificate("ReaderRoot_certificate")
        #expect(root.subject == "CN=reader root")
        #expect(root.issuer == "CN=reader root")
        #expect(root.isSelfIssued)
        #expect(root.isCA)
        #expect(root.pathLengthConstraint == 0)
        #expect(root.hasKeyUsageExtension)
        #expect(root.keyUsage == [.keyCertSign, .cRLSign])
        #expect(root.extendedKeyUsage.isEmpty)
        #expect(root.serialNumberHex == "30d747795405d564b7ac48be6f364ae2c774f2fc")
        #expect(root.notBefore == utc(2020, 10, 1))
        #expect(root.notAfter == utc(2029, 9, 29))
        #expect(try root.publicKey.curve == .p256)
        #expect(root.der == Vectors.annexD("ReaderRoot_certificate"))
    }

    @Test func readsTheAnnexDReaderCertificate() throws {
        let reader = try Fixtures.annexDCertificate("Reader_certificate")
        #expect(reader.subject.contains("CN=reader"))
        #expect(reader.issuer.contains("CN=reader root"))
        #expect(!reader.isSelfIssued)
        #expect(!reader.isCA)
        #expect(reader.pathLengthConstraint == nil)
        #expect(reader.keyUsage == .digitalSignature)
        #expect(reader.extendedKeyUsage == ["1.0.18013.5.1.6"])
        #expect(reader.notBefore == utc(2020, 10, 1))
        #expect(reader.notAfter == utc(2023, 12, 31))
        #expect(reader.dnsSubjectAlternativeNames.isEmpty)
    }

    @Test func readsTheAnnexDIssuerCertificates() throws {
        let iaca = try Fixtures.annexDCertificate("IACA_certificate")
        let ds = try Fixtures.annexDCertificate("DS_certificate")
        // RFC 2253 lists the last RDN first; these certificates encode CN before C.
        #expect(iaca.subject == "C=US,CN=utopia iaca")
        #expect(iaca.isCA)
        #expect(iaca.keyUsage == [.keyCertSign, .cRLSign])
        #expect(ds.subject == "C=US,CN=utopia ds")
        #expect(ds.issuer == "C=US,CN=utopia iaca")
        #expect(!ds.isCA)
        #expect(ds.keyUsage == .digitalSignature)
        #expect(ds.extendedKeyUsage == ["1.0.18013.5.1.2"])
        #expect(ds.notBefore == utc(2020, 10, 1))
        #expect(ds.notAfter == utc(2021, 10, 1))
        let key = try ds.publicKey
        #expect(key.curve == .p256)
        #expect(key.subjectPublicKeyInfoDER.count == 91)
    }

    @Test func readsSubjectAlternativeNamesAndUTF8Names() throws {
        let leaf = try #require(try Certificate.parsePEM(Fixtures.testLeafPEM).first)
        #expect(leaf.subject == "CN=Test Leaf,O=Bärlin Reader GmbH,C=DE")
        #expect(leaf.issuer == "CN=Test Intermediate,C=DE")
        #expect(leaf.dnsSubjectAlternativeNames == ["reader.example.com", "alt.example.com"])
        #expect(leaf.uriSubjectAlternativeNames == ["https://reader.example.com/mdoc"])
        #expect(leaf.extendedKeyUsage == ["1.0.18013.5.1.6", "1.3.6.1.5.5.7.3.2"])
        #expect(leaf.serialNumberHex == "0123456789abcdef")
        #expect(leaf.keyUsage == .digitalSignature)
        #expect(!leaf.isCA)
        #expect(try leaf.publicKey.curve == .ed25519)
        #expect(leaf.notAfter == utc(2034, 1, 1))
    }

    @Test func certificatesWithoutExtensionsReportEmptyValues() throws {
        let rogue = try #require(try Certificate.parsePEM(Fixtures.testRoguePEM).first)
        #expect(!rogue.hasKeyUsageExtension)
        #expect(rogue.keyUsage.isEmpty)
        #expect(rogue.extendedKeyUsage.isEmpty)
        #expect(rogue.dnsSubjectAlternativeNames.isEmpty)
        #expect(rogue.uriSubjectAlternativeNames.isEmpty)
        #expect(!rogue.isCA)
        #expect(rogue.pathLengthConstraint == nil)
    }

    @Test func pemBundlesParseInOrderAndRoundTrip() throws {
        let bundle = [Fixtures.testRootPEM, "some text between", Fixtures.testIntermediatePEM, Fixtures.testLeafPEM]
            .joined(separator: "\n")
        let certificates = try Certificate.parsePEM(bundle)
        #expect(
            certificates.map(\.subject) == ["CN=Test Root,C=DE", "CN=Test Intermediate,C=DE", certificates[2].subject])
        #expect(certificates.count == 3)
        for certificate in certificates {
            #expect(try Certificate.parsePEM(certificate.pem) == [certificate])
            #expect(try Certificate(der: certificate.der) == certificate)
        }
        #expect(certificates[0].pem == Fixtures.testRootPEM + "\n")
    }

    @Test func malformedCertificatesAreRejected() throws {
        #expect(throws: CryptoError.self) { try Certificate.parsePEM("") }
        #expect(throws: CryptoError.self) { try Certificate.parsePEM("no certificates here") }
        let broken = Fixtures.testRootPEM.replacingOccurrences(of: "MIIBVjCB", with: "MIIBVjCA")
        #expect(throws: CryptoError.self) { try Certificate.parsePEM(broken) }
        let der = try Fixtures.annexDCertificate("Reader_certificate").der
        #expect(throws: CryptoError.self) { try Certificate(der: der + [0]) }
        #expect(throws: CryptoError.self) { try Certificate(der: Array(der.dropLast())) }
        #expect(throws: CryptoError.self) { try Certificate(der: []) }
    }

    @Test func fingerprintIsSHA256OfTheDER() throws {
        let reader = try Fixtures.annexDCertificate("Reader_certificate")
        #expect(reader.sha256Fingerprint == Digest.sha256(reader.der))
        #expect(reader.sha256Fingerprint.count == 32)
    }
}

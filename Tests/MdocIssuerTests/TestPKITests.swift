import CBOR
import Foundation
import ISO18013
import MdocCrypto
import MdocIssuer
import Testing

struct ReaderProfileTests {
    /// Signs a request with the PKI's reader key and checks ISO 18013-5 reader authentication:
    /// trusted against the reader CA (EKU, digitalSignature, not a CA, chain), not against the IACA.
    static func expectTrustedReader(_ pki: TestPKI) throws {
        let request = ItemsRequest(
            docType: MDLClaims.docType,
            nameSpaces: [.init(MDLClaims.nameSpace, [.init("family_name"), .init("age_over_18")])])
        let itemsRequestBytes = EmbeddedCBOR(request.cbor)
        let transcript = SessionTranscript(handover: .null)
        let algorithm = try #require(pki.readerKey.curve.preferredSignatureAlgorithm)
        let readerAuth = try ReaderAuthentication.sign(
            transcript: transcript, itemsRequestBytes: itemsRequestBytes, key: pki.readerKey, algorithm: algorithm,
            certificateChain: [pki.reader])
        let payload = ReaderAuthentication.bytes(transcript: transcript, itemsRequestBytes: itemsRequestBytes)
        let trusted = ReaderAuthentication.verify(
            readerAuth, payloads: [payload], trustAnchors: [pki.readerCA], at: Date())
        #expect(trusted.status == .trusted, "\(trusted.failure ?? "")")
        #expect(trusted.trustAnchor == pki.readerCA)
        let untrusted = ReaderAuthentication.verify(
            readerAuth, payloads: [payload], trustAnchors: [pki.iaca], at: Date())
        #expect(untrusted.status == .untrusted)
    }

    @Test func generatedReaderPassesTheReaderProfileAndChains() throws {
        let pki = IssuerFixtures.pki
        #expect(pki.reader.extendedKeyUsage == [ReaderAuthentication.readerAuthEKU])
        #expect(pki.reader.keyUsage == .digitalSignature)
        #expect(!pki.reader.isCA)
        #expect(pki.reader.issuer == pki.readerCA.subject)
        #expect(
            CertificateChainValidator.validate(chain: [pki.reader], anchors: [pki.readerCA], at: Date()).isValid)
        try Self.expectTrustedReader(pki)
    }

    @Test func documentSignerIsNotAReaderCertificate() throws {
        let pki = IssuerFixtures.pki
        // Issue a "reader" request signed by the document signer: the profile must refuse it.
        let itemsRequestBytes = EmbeddedCBOR(
            ItemsRequest(docType: MDLClaims.docType, nameSpaces: [.init(MDLClaims.nameSpace, [.init("given_name")])])
                .cbor)
        let transcript = SessionTranscript(handover: .null)
        let auth = try ReaderAuthentication.sign(
            transcript: transcript, itemsRequestBytes: itemsRequestBytes, key: pki.documentSignerKey,
            algorithm: .es256, certificateChain: [pki.documentSigner])
        let result = ReaderAuthentication.verify(
            auth, payloads: [ReaderAuthentication.bytes(transcript: transcript, itemsRequestBytes: itemsRequestBytes)],
            trustAnchors: [pki.iaca], at: Date())
        #expect(result.status == .untrusted)
        #expect(result.failure?.contains(ReaderAuthentication.readerAuthEKU) == true)
    }
}

struct TestPKITests {
    @Test func profilesFollowAnnexB() throws {
        let pki = IssuerFixtures.pki
        #expect(pki.iaca.isSelfIssued)
        #expect(pki.iaca.isCA)
        #expect(pki.iaca.pathLengthConstraint == 0)
        #expect(pki.iaca.keyUsage == [.keyCertSign, .cRLSign])
        #expect(pki.iaca.subject == "CN=mdoc-holder Test IACA,C=US")
        #expect(pki.iaca.issuerAlternativeNames == [.uri("https://issuer.example.org")])
        #expect(pki.iaca.subjectKeyIdentifier != nil)

        #expect(pki.documentSigner.issuer == pki.iaca.subject)
        #expect(!pki.documentSigner.isCA)
        #expect(pki.documentSigner.keyUsage == .digitalSignature)
        #expect(pki.documentSigner.extendedKeyUsage == ["1.0.18013.5.1.2"])
        #expect(pki.documentSigner.authorityKeyIdentifier == pki.iaca.subjectKeyIdentifier)
        #expect(pki.documentSigner.issuerAlternativeNames == pki.iaca.issuerAlternativeNames)

        #expect(pki.readerCA.isCA)
        #expect(pki.readerCA.pathLengthConstraint == 0)
        #expect(pki.readerCA.keyUsage == [.keyCertSign, .cRLSign])

        for certificate in [pki.iaca, pki.documentSigner, pki.readerCA, pki.reader] {
            #expect(try certificate.publicKey.curve == .p256)
        }
        #expect(
            CertificateChainValidator.validate(chain: [pki.documentSigner], anchors: [pki.iaca], at: Date()).isValid)
        #expect(
            !CertificateChainValidator.validate(chain: [pki.documentSigner], anchors: [pki.readerCA], at: Date())
                .isValid)
    }

    @Test func defaultValidityIsADayBackAndOneOrFiveYearsAhead() throws {
        let now = Date()
        let pki = IssuerFixtures.pki
        let day: TimeInterval = 86_400
        for certificate in [pki.iaca, pki.documentSigner, pki.readerCA, pki.reader] {
            #expect(abs(certificate.notBefore.timeIntervalSince(now) + day) < 120)
        }
        for leaf in [pki.documentSigner, pki.reader] {
            #expect(abs(leaf.notAfter.timeIntervalSince(now) - 365 * day) < 120)
        }
        for root in [pki.iaca, pki.readerCA] {
            #expect(abs(root.notAfter.timeIntervalSince(now) - 1826 * day) < 120)
        }
    }

    @Test func customValidityAndCurve() throws {
        let start = Date(timeIntervalSince1970: 1_700_000_000)
        let validity = TestPKI.Validity(
            notBefore: start, leafNotAfter: start.addingTimeInterval(1000), rootNotAfter: start.addingTimeInterval(2000)
        )
        let pki = try TestPKI.generate(curve: .p384, validity: validity, country: "DE")
        #expect(pki.documentSigner.notBefore == start)
        #expect(pki.documentSigner.notAfter == start.addingTimeInterval(1000))
        #expect(pki.iaca.notAfter == start.addingTimeInterval(2000))
        #expect(pki.iaca.subject.hasSuffix("C=DE"))
        #expect(try pki.reader.publicKey.curve == .p384)
        #expect(throws: IssuerError.self) { try TestPKI.generate(curve: .x25519) }
    }

    @Test func saveAndLoadRoundTripWithPrivateKeyModes() throws {
        let directory = FileManager.default.temporaryDirectory
            .appendingPathComponent("mdoc-issuer-tests-\(UUID().uuidString)").appendingPathComponent("pki")
        defer { try? FileManager.default.removeItem(at: directory.deletingLastPathComponent()) }
        let pki = IssuerFixtures.pki
        let written = try pki.save(to: directory)
        #expect(
            written.map(\.lastPathComponent) == [
                "iaca.pem", "iaca.key.pem", "ds.pem", "ds.key.pem", "reader-ca.pem", "reader-ca.key.pem",
                "reader.pem", "reader.key.pem",
            ])
        for url in written {
            let mode = try FileManager.default.attributesOfItem(atPath: url.path)[.posixPermissions] as? Int
            #expect(mode == (url.lastPathComponent.hasSuffix(".key.pem") ? 0o600 : 0o644), "\(url.lastPathComponent)")
        }
        let loaded = try TestPKI.load(from: directory)
        #expect(loaded.iaca == pki.iaca)
        #expect(loaded.documentSigner == pki.documentSigner)
        #expect(loaded.readerCA == pki.readerCA)
        #expect(loaded.reader == pki.reader)
        #expect(loaded.documentSignerKey.publicKey == pki.documentSignerKey.publicKey)
        #expect(loaded.readerKey.publicKey == pki.readerKey.publicKey)

        // A key that does not belong to its certificate is refused, naming the file.
        try Data(try pki.readerKey.pkcs8PEM().utf8).write(to: directory.appendingPathComponent("ds.key.pem"))
        do {
            _ = try TestPKI.load(from: directory)
            Issue.record("a mismatched key was accepted")
        } catch {
            #expect(error.description.contains("ds.key.pem"))
            #expect(error.description.contains("does not belong"))
        }
        try FileManager.default.removeItem(at: directory.appendingPathComponent("reader.pem"))
        #expect(
            throws: IssuerError.file(path: directory.appendingPathComponent("reader.pem").path, reason: "no such file")
        ) {
            try TestPKI.load(from: directory)
        }
    }
}

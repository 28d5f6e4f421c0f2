import Foundation
import MdocCrypto
import Testing

struct CertificateBuilderTests {
    static let start = utc(2025, 1, 1)
    static let end = utc(2045, 1, 1)
    static let during = utc(2030, 6, 1)

    static func root(
        _ key: PrivateKey, name: String = "Test IACA", pathLength: Int? = 0
    ) throws -> Certificate {
        var builder = CertificateBuilder(
            subject: DistinguishedName(country: "US", commonName: name), subjectPublicKey: key.publicKey,
            notBefore: start, notAfter: end)
        builder.basicConstraints = .certificateAuthority(pathLength: pathLength)
        builder.keyUsage = [.keyCertSign, .cRLSign]
        builder.issuerAlternativeNames = [.uri("https://issuer.example.org")]
        return try builder.selfSigned(with: key)
    }

    static func leaf(
        _ key: PrivateKey, issuer: Certificate, issuerKey: PrivateKey, eku: [String] = ["1.0.18013.5.1.2"],
        notAfter: Date = utc(2035, 1, 1)
    ) throws -> Certificate {
        var builder = CertificateBuilder(
            subject: DistinguishedName(country: "US", commonName: "Test Leaf"), subjectPublicKey: key.publicKey,
            notBefore: start, notAfter: notAfter)
        builder.basicConstraints = .endEntity
        builder.keyUsage = .digitalSignature
        builder.extendedKeyUsage = eku
        return try builder.issued(by: issuer, issuerKey: issuerKey)
    }

    @Test func selfSignedRootHasTheRequestedFields() throws {
        let key = try PrivateKey.generate(.p256)
        let root = try Self.root(key)
        let parsed = try Certificate(der: root.der)
        #expect(parsed.subject == "CN=Test IACA,C=US")
        #expect(parsed.issuer == parsed.subject)
        #expect(parsed.isSelfIssued)
        #expect(parsed.isCA)
        #expect(parsed.pathLengthConstraint == 0)
        #expect(parsed.hasKeyUsageExtension)
        #expect(parsed.keyUsage == [.keyCertSign, .cRLSign])
        #expect(parsed.extendedKeyUsage.isEmpty)
        #expect(parsed.issuerAlternativeNames == [.uri("https://issuer.example.org")])
        #expect(try parsed.publicKey == key.publicKey)
        #expect(parsed.notBefore == Self.start)
        #expect(parsed.notAfter == Self.end)
        let ski = try #require(parsed.subjectKeyIdentifier)
        #expect(ski.count == 20)
        #expect(parsed.authorityKeyIdentifier == nil)  // self-signed: no AKI, as the Annex D IACA
        // 16 random bytes, positive: 32 hex digits, the first below 8.
        #expect(parsed.serialNumberHex.count == 32)
        #expect(try #require(parsed.serialNumberHex.first?.hexDigitValue) < 8)
        let result = CertificateChainValidator.validate(chain: [parsed], anchors: [parsed], at: Self.during)
        #expect(result.isValid, "\(result.failure ?? "")")
    }

    @Test func issuedCertificateChainsToItsIssuer() throws {
        let rootKey = try PrivateKey.generate(.p256)
        let root = try Self.root(rootKey)
        let leafKey = try PrivateKey.generate(.p256)
        let leaf = try Self.leaf(leafKey, issuer: root, issuerKey: rootKey)
        #expect(leaf.issuer == root.subject)
        #expect(!leaf.isSelfIssued)
        #expect(!leaf.isCA)
        #expect(leaf.pathLengthConstraint == nil)
        #expect(leaf.keyUsage == .digitalSignature)
        #expect(leaf.extendedKeyUsage == ["1.0.18013.5.1.2"])
        #expect(leaf.authorityKeyIdentifier == root.subjectKeyIdentifier)
        #expect(leaf.subjectKeyIdentifier != root.subjectKeyIdentifier)
        #expect(leaf.serialNumberHex != root.serialNumberHex)

        let valid = CertificateChainValidator.validate(chain: [leaf], anchors: [root], at: Self.during)
        #expect(valid.isValid, "\(valid.failure ?? "")")
        #expect(valid.trustAnchor == root)

        let otherKey = try PrivateKey.generate(.p256)
        let other = try Self.root(otherKey)  // same name, different key
        #expect(!CertificateChainValidator.validate(chain: [leaf], anchors: [other], at: Self.during).isValid)
        let expired = CertificateChainValidator.validate(chain: [leaf], anchors: [root], at: utc(2036, 1, 1))
        #expect(!expired.isValid)
        #expect(expired.failure?.contains("expired") == true)
    }

    /// The signatureAlgorithm OID that ends the TBSCertificate's successor, per issuer curve.
    @Test(arguments: [
        (Curve.p256, [0x2a, 0x86, 0x48, 0xce, 0x3d, 0x04, 0x03, 0x02] as [UInt8]),  // ecdsa-with-SHA256
        (.p384, [0x2a, 0x86, 0x48, 0xce, 0x3d, 0x04, 0x03, 0x03]),  // ecdsa-with-SHA384
        (.p521, [0x2a, 0x86, 0x48, 0xce, 0x3d, 0x04, 0x03, 0x04]),  // ecdsa-with-SHA512
        (.ed25519, [0x2b, 0x65, 0x70]),  // id-Ed25519
    ])
    func signatureAlgorithmFollowsTheIssuerCurve(curve: Curve, oid: [UInt8]) throws {
        let rootKey = try PrivateKey.generate(curve)
        let root = try Self.root(rootKey)
        let leaf = try Self.leaf(try PrivateKey.generate(.p256), issuer: root, issuerKey: rootKey)
        let algorithm = [0x06, UInt8(oid.count)] + oid
        #expect(Self.contains(root.der, algorithm))
        #expect(Self.contains(leaf.der, algorithm))
        #expect(CertificateChainValidator.validate(chain: [leaf], anchors: [root], at: Self.during).isValid)
    }

    @Test func readerCertificateCarriesEKUsAndAlternativeNames() throws {
        let caKey = try PrivateKey.generate(.p384)
        let ca = try Self.root(caKey, name: "Reader CA")
        let key = try PrivateKey.generate(.ed25519)
        var builder = CertificateBuilder(
            subject: DistinguishedName([
                (.country, "DE"), (.stateOrProvince, "Berlin"), (.organization, "Bärlin Reader GmbH"),
                (.organizationalUnit, "Kiosks"), (.commonName, "reader, one"),
            ]),
            subjectPublicKey: key.publicKey, notBefore: Self.start, notAfter: utc(2035, 1, 1))
        builder.basicConstraints = .endEntity
        builder.keyUsage = .digitalSignature
        builder.extendedKeyUsage = ["1.0.18013.5.1.6", "1.3.6.1.5.5.7.3.2"]
        builder.subjectAlternativeNames = [.dns("reader.example.org"), .uri("https://reader.example.org/mdoc")]
        builder.issuerAlternativeNames = [.email("pki@example.org")]
        builder.crlDistributionPoints = [.uri("https://pki.example.org/reader.crl")]
        let reader = try builder.issued(by: ca, issuerKey: caKey)

        #expect(reader.subject == builder.subject.description)
        #expect(reader.subject == "CN=reader\\, one,OU=Kiosks,O=Bärlin Reader GmbH,ST=Berlin,C=DE")
        #expect(reader.extendedKeyUsage == ["1.0.18013.5.1.6", "1.3.6.1.5.5.7.3.2"])
        #expect(reader.dnsSubjectAlternativeNames == ["reader.example.org"])
        #expect(reader.uriSubjectAlternativeNames == ["https://reader.example.org/mdoc"])
        #expect(reader.issuerAlternativeNames == [.email("pki@example.org")])
        #expect(reader.crlDistributionPoints == [.uri("https://pki.example.org/reader.crl")])
        #expect(try reader.publicKey == key.publicKey)
        #expect(CertificateChainValidator.validate(chain: [reader], anchors: [ca], at: Self.during).isValid)
    }

    @Test func pathLengthIsEnforcedByValidation() throws {
        let rootKey = try PrivateKey.generate(.p256)
        let intermediateKey = try PrivateKey.generate(.p256)
        let leafKey = try PrivateKey.generate(.p256)
        for (rootPathLength, expectValid) in [(1, true), (0, false)] {
            let root = try Self.root(rootKey, pathLength: rootPathLength)
            var builder = CertificateBuilder(
                subject: DistinguishedName(country: "US", commonName: "Intermediate"),
                subjectPublicKey: intermediateKey.publicKey, notBefore: Self.start, notAfter: Self.end)
            builder.basicConstraints = .certificateAuthority(pathLength: nil)
            builder.keyUsage = .keyCertSign
            let intermediate = try builder.issued(by: root, issuerKey: rootKey)
            #expect(intermediate.isCA)
            #expect(intermediate.pathLengthConstraint == nil)
            let leaf = try Self.leaf(leafKey, issuer: intermediate, issuerKey: intermediateKey)
            let result = CertificateChainValidator.validate(
                chain: [leaf, intermediate], anchors: [root], at: Self.during)
            #expect(result.isValid == expectValid, "root pathlen \(rootPathLength): \(result.failure ?? "valid")")
        }
    }

    @Test func wrongOrUnusableKeysAreRefused() throws {
        let rootKey = try PrivateKey.generate(.p256)
        let root = try Self.root(rootKey)
        let stranger = try PrivateKey.generate(.p256)
        #expect(throws: CertificateBuilderError.self) {
            try Self.leaf(try PrivateKey.generate(.p256), issuer: root, issuerKey: stranger)
        }
        let builder = CertificateBuilder(
            subject: DistinguishedName(commonName: "x"), subjectPublicKey: rootKey.publicKey, notBefore: Self.start,
            notAfter: Self.end)
        #expect(throws: CertificateBuilderError.self) { try builder.selfSigned(with: stranger) }
        let agreementKey = try PrivateKey.generate(.x25519)
        let agreementOnly = CertificateBuilder(
            subject: DistinguishedName(commonName: "x"), subjectPublicKey: agreementKey.publicKey,
            notBefore: Self.start, notAfter: Self.end)
        #expect(throws: CertificateBuilderError.self) { try agreementOnly.selfSigned(with: agreementKey) }
    }

    @Test func invalidFieldsAreRefusedByName() throws {
        let key = try PrivateKey.generate(.p256)
        func refusal(_ change: (inout CertificateBuilder) -> Void) -> String? {
            var builder = CertificateBuilder(
                subject: DistinguishedName(country: "US", commonName: "x"), subjectPublicKey: key.publicKey,
                notBefore: Self.start, notAfter: Self.end)
            change(&builder)
            do {
                _ = try builder.selfSigned(with: key)
                return nil
            } catch {
                if case .invalidField(let field, _) = error { return field }
                return "other: \(error)"
            }
        }
        #expect(refusal { _ in } == nil)
        #expect(refusal { $0.subject = DistinguishedName(country: "USA", commonName: "x") } == "subject C")
        #expect(refusal { $0.subject = DistinguishedName() } == "subject")
        #expect(refusal { $0.extendedKeyUsage = ["mdocReaderAuth"] } == "extendedKeyUsage")
        #expect(refusal { $0.notAfter = Self.start } == "validity")
        #expect(refusal { $0.serialNumber = [0, 0] } == "serialNumber")
        #expect(refusal { $0.basicConstraints = .certificateAuthority(pathLength: -1) } == "basicConstraints")
        #expect(refusal { $0.subjectAlternativeNames = [.dns("bär.example")] } == "subjectAltName")
        #expect(refusal { $0.keyUsage = [] } == "keyUsage")
    }

    @Test func explicitSerialNumberAndNoKeyIdentifiers() throws {
        let key = try PrivateKey.generate(.p256)
        var builder = CertificateBuilder(
            subject: DistinguishedName(commonName: "plain"), subjectPublicKey: key.publicKey, notBefore: Self.start,
            notAfter: Self.end)
        builder.serialNumber = [0x01, 0x23, 0x45]
        builder.includeKeyIdentifiers = false
        let certificate = try builder.selfSigned(with: key)
        #expect(certificate.serialNumberHex == "012345")
        #expect(certificate.subjectKeyIdentifier == nil)
        #expect(certificate.authorityKeyIdentifier == nil)
        #expect(!certificate.hasKeyUsageExtension)
        #expect(!certificate.isCA)
    }

    @Test func preferredSignatureAlgorithms() {
        #expect(Curve.p256.preferredSignatureAlgorithm == .es256)
        #expect(Curve.p384.preferredSignatureAlgorithm == .es384)
        #expect(Curve.p521.preferredSignatureAlgorithm == .es512)
        #expect(Curve.ed25519.preferredSignatureAlgorithm == .edDSA)
        #expect(Curve.x25519.preferredSignatureAlgorithm == nil)
    }

    static func contains(_ haystack: [UInt8], _ needle: [UInt8]) -> Bool {
        guard needle.count <= haystack.count else { return false }
        return (0...(haystack.count - needle.count)).contains { Array(haystack[$0..<($0 + needle.count)]) == needle }
    }
}

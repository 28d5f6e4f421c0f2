import CBOR
import COSE
import Foundation
import ISO18013
import MdocCrypto
import MdocIssuer
import TestSupport
import Testing

struct IssuanceTests {
    @Test func issuedMDLVerifiesAgainstItsIACA() throws {
        let (issued, _) = try IssuerFixtures.issueMDL()
        let result = IssuerDataAuthentication.verify(
            issued, docType: MDLClaims.docType, trustAnchors: [IssuerFixtures.pki.iaca], at: Date())
        #expect(result.isValid, "\(result.failures)")
        #expect(result.trustAnchor == IssuerFixtures.pki.iaca)
        #expect(result.documentSigner == IssuerFixtures.pki.documentSigner)
        let claims = try IssuerFixtures.mdlClaims()
        #expect(result.elements.count == claims.nameSpaces[0].1.count)
        let mismatched = result.elements.filter { !$0.digestMatches }
        #expect(mismatched.isEmpty)
        // Items come in claims order, with the values given.
        #expect(issued.nameSpaces.map(\.name) == [MDLClaims.nameSpace])
        #expect(issued.nameSpaces[0].items.map(\.elementIdentifier) == claims.nameSpaces[0].1.map(\.0))
        #expect(issued.nameSpaces[0].items.map(\.elementValue) == claims.nameSpaces[0].1.map(\.1))
    }

    @Test func issuedMDLFailsAgainstAnotherIACA() throws {
        let (issued, _) = try IssuerFixtures.issueMDL()
        let other = try TestPKI.generate()
        let result = IssuerDataAuthentication.verify(
            issued, docType: MDLClaims.docType, trustAnchors: [other.iaca, other.readerCA], at: Date())
        #expect(!result.isValid)
        #expect(result.trustAnchor == nil)
        #expect(result.failures.contains { $0.contains("document signer is not trusted") })
    }

    @Test func aByteFlippedInAnElementFailsItsDigest() throws {
        let (issued, _) = try IssuerFixtures.issueMDL()
        var encoded = issued.cbor.encoded()
        let portrait = try IssuerFixtures.mdlClaims().value("portrait", in: MDLClaims.nameSpace)?.bytesValue
        let jpeg = try #require(portrait)
        let range = try #require(encoded.firstRange(of: jpeg))
        encoded[range.lowerBound + 100] ^= 0x01
        let tampered = try IssuerSigned(bytes: encoded)
        let result = IssuerDataAuthentication.verify(
            tampered, docType: MDLClaims.docType, trustAnchors: [IssuerFixtures.pki.iaca], at: Date())
        #expect(!result.isValid)
        #expect(result.failures == ["org.iso.18013.5.1:portrait does not match its digest in the MSO"])
        #expect(result.elements.filter { !$0.digestMatches }.map(\.identifier) == ["portrait"])
    }

    @Test func validityWindowIsRespected() throws {
        let (issued, _) = try IssuerFixtures.issueMDL()
        let late = IssuerDataAuthentication.verify(
            issued, docType: MDLClaims.docType, trustAnchors: [IssuerFixtures.pki.iaca],
            at: Date().addingTimeInterval(31 * 86_400))
        #expect(late.failures.contains { $0.contains("MSO has expired") })
        let wrongType = IssuerDataAuthentication.verify(
            issued, docType: "org.example.other", trustAnchors: [IssuerFixtures.pki.iaca], at: Date())
        #expect(wrongType.failures.contains { $0.contains("does not match the document's docType") })
    }

    @Test func digestIDsAreAShuffledPermutationPerNamespace() throws {
        let deviceKey = try PrivateKey.generate(.p256).publicKey
        let pki = IssuerFixtures.pki
        let elements: [(String, CBOR)] = (0..<20).map { ("element_\($0)", .int($0)) }
        let now = Date()
        var orders: Set<[UInt64]> = []
        for _ in 0..<3 {
            let issued = try MdocIssuer.issue(
                docType: "org.example.test",
                nameSpaces: [("org.example.a", elements), ("org.example.b", Array(elements.prefix(5)))],
                deviceKey: deviceKey, documentSignerKey: pki.documentSignerKey,
                documentSignerChain: [pki.documentSigner], validFrom: now, validUntil: now.addingTimeInterval(3600))
            let mso = try issued.mobileSecurityObject().mso
            for ns in issued.nameSpaces {
                let ids = ns.items.map(\.digestID)
                #expect(Set(ids).count == ids.count, "digest IDs repeat in \(ns.name)")
                #expect(Set(ids) == Set((0..<UInt64(ids.count)).map { $0 }))
                #expect(Set(mso.valueDigests[ns.name]?.keys.map { $0 } ?? []) == Set(ids))
                let saltLengths = Set(ns.items.map(\.random.count))
                #expect(saltLengths == [MdocIssuer.saltLength])
            }
            orders.insert(issued.nameSpaces[0].items.map(\.digestID))
            let salts = issued.nameSpaces.flatMap(\.items).map(\.random)
            #expect(Set(salts).count == salts.count)
        }
        // 20! orders: three equal shuffles (or the identity each time) would mean no shuffling.
        #expect(orders.count > 1)
        #expect(!orders.contains((0..<20).map { $0 }))
    }

    @Test(arguments: [Curve.p256, .p384, .ed25519])
    func msoCarriesTheGivenDeviceKey(curve: Curve) throws {
        let deviceKey = try PrivateKey.generate(curve).publicKey
        let (issued, _) = try IssuerFixtures.issueMDL(deviceKey: deviceKey)
        let (bytes, mso) = try issued.mobileSecurityObject()
        #expect(mso.deviceKey == COSEKey(deviceKey))
        #expect(try mso.deviceKey.publicKey() == deviceKey)
        #expect(mso.docType == MDLClaims.docType)
        #expect(mso.digestAlgorithm == "SHA-256")
        #expect(mso.version == "1.0")
        // The payload is MobileSecurityObjectBytes: tag 24 around the MSO encoding.
        #expect(bytes.starts(with: [0xd8, 0x18]))
        // issuerAuth: ES256 in the protected header, the document signer alone as one bstr.
        #expect(issued.issuerAuth.algorithm == .es256)
        #expect(issued.issuerAuth.x5chain == [IssuerFixtures.pki.documentSigner.der])
        #expect(issued.issuerAuth.unprotected.first?.value == .bytes(IssuerFixtures.pki.documentSigner.der))
    }

    @Test(arguments: [(Curve.p384, SignatureAlgorithm.es384), (.p521, .es512), (.ed25519, .edDSA)])
    func issuerAuthAlgorithmFollowsTheSignerCurve(curve: Curve, algorithm: SignatureAlgorithm) throws {
        let pki = try TestPKI.generate(curve: curve)
        let (issued, _) = try IssuerFixtures.issueMDL(pki: pki)
        #expect(issued.issuerAuth.algorithm == algorithm)
        let result = IssuerDataAuthentication.verify(
            issued, docType: MDLClaims.docType, trustAnchors: [pki.iaca], at: Date())
        #expect(result.isValid, "\(result.failures)")
    }

    @Test(arguments: [DigestAlgorithm.sha384, .sha512])
    func otherDigestAlgorithms(digest: DigestAlgorithm) throws {
        let pki = IssuerFixtures.pki
        let now = Date()
        let issued = try MdocIssuer.issue(
            try IssuerFixtures.mdlClaims(), deviceKey: try PrivateKey.generate(.p256).publicKey, pki: pki,
            validFrom: now, validUntil: now.addingTimeInterval(3600), digestAlgorithm: digest)
        let mso = try issued.mobileSecurityObject().mso
        #expect(mso.digest == digest)
        let digestLengths = Set(mso.valueDigests[MDLClaims.nameSpace]?.values.map(\.count) ?? [])
        #expect(digestLengths == [digest.outputSize])
        #expect(
            IssuerDataAuthentication.verify(issued, docType: MDLClaims.docType, trustAnchors: [pki.iaca], at: now)
                .isValid)
    }

    @Test func validityIsKeptInWholeSeconds() throws {
        let pki = IssuerFixtures.pki
        let now = Date(timeIntervalSince1970: 1_800_000_000.75)
        let issued = try MdocIssuer.issue(
            docType: "org.example.test", nameSpaces: [("org.example", [("a", true)])],
            deviceKey: try PrivateKey.generate(.p256).publicKey, documentSignerKey: pki.documentSignerKey,
            documentSignerChain: [pki.documentSigner], validFrom: now, validUntil: now.addingTimeInterval(10),
            signed: now, expectedUpdate: now.addingTimeInterval(5))
        let validity = try issued.mobileSecurityObject().mso.validityInfo
        #expect(validity.signed == Date(timeIntervalSince1970: 1_800_000_000))
        #expect(validity.validFrom == Date(timeIntervalSince1970: 1_800_000_000))
        #expect(validity.validUntil == Date(timeIntervalSince1970: 1_800_000_010))
        #expect(validity.expectedUpdate == Date(timeIntervalSince1970: 1_800_000_005))
    }

    @Test func unusableArgumentsAreRefused() throws {
        let pki = IssuerFixtures.pki
        let deviceKey = try PrivateKey.generate(.p256).publicKey
        let now = Date()
        func attempt(
            nameSpaces: [(String, [(String, CBOR)])] = [("ns", [("a", 1)])], signerKey: PrivateKey? = nil,
            chain: [Certificate]? = nil, until: Date? = nil
        ) -> IssuerError? {
            do {
                _ = try MdocIssuer.issue(
                    docType: "org.example.test", nameSpaces: nameSpaces, deviceKey: deviceKey,
                    documentSignerKey: signerKey ?? pki.documentSignerKey,
                    documentSignerChain: chain ?? [pki.documentSigner], validFrom: now,
                    validUntil: until ?? now.addingTimeInterval(60))
                return nil
            } catch {
                return error
            }
        }
        #expect(attempt() == nil)
        #expect(attempt(signerKey: pki.readerKey)?.description.contains("does not belong") == true)
        #expect(attempt(chain: [])?.description.contains("chain is empty") == true)
        #expect(attempt(until: now)?.description.contains("validFrom") == true)
        #expect(attempt(nameSpaces: [("ns", [("a", 1), ("a", 2)])])?.description.contains("twice") == true)
        #expect(attempt(nameSpaces: [])?.description.contains("at least one") == true)
        #expect(attempt(nameSpaces: [("ns", [])])?.description.contains("at least one") == true)
    }

    @Test func documentContainerHoldsTheCredential() throws {
        let (issued, deviceKey) = try IssuerFixtures.issueMDL()
        let bytes = MdocIssuer.documentContainer(docType: MDLClaims.docType, issuerSigned: issued)
        let value = try CBOR.decode(bytes)
        #expect(value.mapEntries?.map(\.key) == ["version", "documents", "status"])
        #expect(value["version"] == "1.0")
        #expect(value["status"] == 0)
        let documents = try #require(value["documents"]?.arrayValue)
        #expect(documents.count == 1)
        #expect(documents[0]["docType"] == .text(MDLClaims.docType))
        let inner = try IssuerSigned(cbor: try #require(documents[0]["issuerSigned"]))
        #expect(inner == issued)
        #expect(try inner.mobileSecurityObject().mso.deviceKey == COSEKey(deviceKey))
    }
}

import Foundation
import MdocCrypto
import TestSupport
import Testing

struct ChainValidationTests {
    static func annexD() throws -> (readerRoot: Certificate, reader: Certificate, iaca: Certificate, ds: Certificate) {
        (
            try Fixtures.annexDCertificate("ReaderRoot_certificate"),
            try Fixtures.annexDCertificate("Reader_certificate"),
            try Fixtures.annexDCertificate("IACA_certificate"), try Fixtures.annexDCertificate("DS_certificate")
        )
    }

    static func testChain() throws -> (
        root: Certificate, intermediate: Certificate, leaf: Certificate, rogue: Certificate
    ) {
        (
            try Certificate.parsePEM(Fixtures.testRootPEM)[0],
            try Certificate.parsePEM(Fixtures.testIntermediatePEM)[0],
            try Certificate.parsePEM(Fixtures.testLeafPEM)[0], try Certificate.parsePEM(Fixtures.testRoguePEM)[0]
        )
    }

    @Test func documentSignerValidatesAgainstTheIACA() throws {
        let c = try Self.annexD()
        let result = CertificateChainValidator.validate(chain: [c.ds], anchors: [c.iaca], at: utc(2021, 6, 1))
        #expect(result.isValid)
        #expect(result.trustAnchor == c.iaca)
        #expect(result.failure == nil)
    }

    @Test func readerValidatesAgainstTheReaderRoot() throws {
        let c = try Self.annexD()
        let result = CertificateChainValidator.validate(
            chain: [c.reader], anchors: [c.iaca, c.readerRoot], at: utc(2022, 6, 1))
        #expect(result.isValid)
        #expect(result.trustAnchor == c.readerRoot)
    }

    @Test func expiredReaderFailsWithAnExpiryReason() throws {
        let c = try Self.annexD()
        let result = CertificateChainValidator.validate(chain: [c.reader], anchors: [c.readerRoot], at: utc(2025, 1, 1))
        #expect(!result.isValid)
        #expect(result.trustAnchor == nil)
        let failure = try #require(result.failure)
        #expect(failure.contains("expired"))
        #expect(failure.contains("CN=reader"))
    }

    @Test func notYetValidCertificateFails() throws {
        let c = try Self.annexD()
        let result = CertificateChainValidator.validate(chain: [c.ds], anchors: [c.iaca], at: utc(2020, 9, 1))
        #expect(!result.isValid)
        #expect(result.failure?.contains("not yet valid") == true)
    }

    @Test func documentSignerFailsAgainstTheReaderRoot() throws {
        let c = try Self.annexD()
        let result = CertificateChainValidator.validate(chain: [c.ds], anchors: [c.readerRoot], at: utc(2021, 6, 1))
        #expect(!result.isValid)
        #expect(result.failure?.contains("unable to get local issuer certificate") == true)
    }

    @Test func flippedSignatureByteFailsValidation() throws {
        let c = try Self.annexD()
        var der = c.reader.der
        der[der.count - 1] ^= 0x01
        let tampered = try Certificate(der: der)
        let result = CertificateChainValidator.validate(chain: [tampered], anchors: [c.readerRoot], at: utc(2022, 6, 1))
        #expect(!result.isValid)
        #expect(result.failure?.contains("signature") == true)
    }

    @Test func anchorPassedAsLeafIsStillCheckedForValidity() throws {
        let c = try Self.annexD()
        #expect(
            CertificateChainValidator.validate(chain: [c.readerRoot], anchors: [c.readerRoot], at: utc(2022, 6, 1))
                .isValid)
        let expired = CertificateChainValidator.validate(
            chain: [c.readerRoot], anchors: [c.readerRoot], at: utc(2030, 1, 1))
        #expect(!expired.isValid)
        #expect(expired.failure?.contains("expired") == true)
    }

    @Test func intermediatesFromTheChainAreUsed() throws {
        let t = try Self.testChain()
        let time = utc(2030, 6, 1)
        let result = CertificateChainValidator.validate(chain: [t.leaf, t.intermediate], anchors: [t.root], at: time)
        #expect(result.isValid)
        #expect(result.trustAnchor == t.root)
        let missing = CertificateChainValidator.validate(chain: [t.leaf], anchors: [t.root], at: time)
        #expect(!missing.isValid)
    }

    @Test func aTrustedIntermediateWorksAsAnAnchor() throws {
        let t = try Self.testChain()
        let result = CertificateChainValidator.validate(chain: [t.leaf], anchors: [t.intermediate], at: utc(2030, 6, 1))
        #expect(result.isValid)
        #expect(result.trustAnchor == t.intermediate)
    }

    @Test func certificatesIssuedByANonCAAreRejected() throws {
        let t = try Self.testChain()
        let result = CertificateChainValidator.validate(
            chain: [t.rogue, t.leaf, t.intermediate], anchors: [t.root], at: utc(2030, 6, 1))
        #expect(!result.isValid)
        #expect(result.failure?.contains("CA") == true)
    }

    @Test func emptyInputsAreInvalid() throws {
        let c = try Self.annexD()
        #expect(
            CertificateChainValidator.validate(chain: [], anchors: [c.readerRoot], at: utc(2022, 6, 1)).failure
                == "empty certificate chain")
        #expect(!CertificateChainValidator.validate(chain: [c.reader], anchors: [], at: utc(2022, 6, 1)).isValid)
    }

    @Test func validationIsSafeFromManyTasksAtOnce() async throws {
        let c = try Self.annexD()
        let results = await withTaskGroup(of: Bool.self) { group in
            for _ in 0..<32 {
                group.addTask {
                    CertificateChainValidator.validate(chain: [c.reader], anchors: [c.readerRoot], at: utc(2022, 6, 1))
                        .isValid
                }
            }
            return await group.reduce(into: [Bool]()) { $0.append($1) }
        }
        #expect(results.allSatisfy { $0 })
    }
}

import MdocCrypto
import TestSupport
import Testing

/// A certificate's extensions are decoded once, on first use, and then read by any thread;
/// a certificate that arrives again (the same DER) is the same parsed object, so its
/// extensions are not decoded again.
struct CertificateExtensionsTests {
    @Test func theSameDERGivesTheSameParsedCertificate() throws {
        let der = try Fixtures.annexDCertificate("Reader_certificate").der
        let first = try Certificate.cached(der: der)
        let again = try Certificate.cached(der: der)
        #expect(first === again)
        let fresh = try Certificate(der: der)
        #expect(fresh !== first)
        #expect(fresh == first)
        #expect(fresh.extendedKeyUsage == first.extendedKeyUsage)
    }

    @Test func firstReadsRacingOnManyThreadsAllSeeTheCertificatesExtensions() async throws {
        let pem = try #require(try Certificate.parsePEM(Fixtures.testLeafPEM).first).pem
        for _ in 0..<20 {
            // A new object each round: every round races on the first decoding.
            let leaf = try #require(try Certificate.parsePEM(pem).first)
            let reads = await withTaskGroup(of: [String].self) { group in
                for index in 0..<16 {
                    group.addTask {
                        // Each task reaches the decoding through a different accessor first.
                        let isCA = index % 3 == 0 ? leaf.isCA : false
                        let names = index % 3 == 1 ? leaf.dnsSubjectAlternativeNames : []
                        return leaf.extendedKeyUsage + (isCA ? ["CA"] : [])
                            + (names.isEmpty ? leaf.dnsSubjectAlternativeNames : names)
                    }
                }
                return await group.reduce(into: [[String]]()) { $0.append($1) }
            }
            #expect(reads.count == 16)
            #expect(
                reads.allSatisfy {
                    $0 == ["1.0.18013.5.1.6", "1.3.6.1.5.5.7.3.2", "reader.example.com", "alt.example.com"]
                })
            #expect(leaf.keyUsage == .digitalSignature)
        }
    }
}

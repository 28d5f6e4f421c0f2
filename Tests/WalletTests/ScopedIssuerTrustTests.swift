import Foundation
import ISO18013
import Testing

@testable import Wallet

/// IACAs from a trust list (VICAL) are trusted for their docTypes only: a credential received
/// or imported under an IACA scoped to another docType is refused.
struct ScopedIssuerTrustTests {
    static let pid = "eu.europa.ec.eudi.pid.1"

    @Test func aReceivedMDLPassesUnderAnIACAScopedToTheMDL() throws {
        let t = try ReceiveTests()
        let scoped = [IssuerTrust.ScopedAnchor(certificate: t.pki.iaca, docTypes: [ReceiveTests.mDL], source: "test")]
        _ = try t.store.receive(
            try t.copies(1), docType: ReceiveTests.mDL, from: t.source, trustAnchors: [], scopedAnchors: scoped)
        #expect(try t.store.list().count == 1)
    }

    @Test func aReceivedMDLIsRefusedUnderAnIACAScopedToThePID() throws {
        let t = try ReceiveTests()
        let scoped = [IssuerTrust.ScopedAnchor(certificate: t.pki.iaca, docTypes: [Self.pid], source: "test")]
        let error = #expect(throws: WalletError.self) {
            try t.store.receive(
                try t.copies(1), docType: ReceiveTests.mDL, from: t.source, trustAnchors: [], scopedAnchors: scoped)
        }
        guard case .issuerAuthenticationFailed(_, _, let failures) = error else {
            Issue.record("expected issuerAuthenticationFailed, got \(String(describing: error))")
            return
        }
        #expect(failures.contains { $0.contains("trusted for \(Self.pid) only") })
        #expect(try t.store.list().isEmpty)
    }
}

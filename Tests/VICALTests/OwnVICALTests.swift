import CBOR
import Foundation
import ISO18013
import MdocCrypto
import MdocIssuer
import Testing
import VICAL

/// VICALs of our own: what is accepted, what is refused and why, and the docType scope of
/// the IACAs a list gives.
@Suite struct OwnVICALTests {
    static let mDL = "org.iso.18013.5.1.mDL"
    static let pid = "eu.europa.ec.eudi.pid.1"

    @Test func aGoodListGivesItsIACAsForTheirDocTypes() throws {
        let fixture = try VICALFixture()
        let pki = try TestPKI.generate()
        let bytes = try fixture.sign(VICALFixture.payload(infos: [VICALFixture.info(pki.iaca, docTypes: [Self.mDL])]))
        let verified = try SignedVICAL(bytes: bytes).verify(anchors: [fixture.root], at: Date())
        #expect(verified.scopedAnchors.count == 1)
        #expect(verified.scopedAnchors[0].certificate == pki.iaca)
        #expect(verified.scopedAnchors[0].docTypes == [Self.mDL])
        #expect(verified.vical.certificateInfos[0].serialNumber == [0x01, 0x02])
    }

    @Test func aTamperedListIsRefused() throws {
        let fixture = try VICALFixture()
        let pki = try TestPKI.generate()
        var bytes = try fixture.sign(VICALFixture.payload(infos: [VICALFixture.info(pki.iaca, docTypes: [Self.mDL])]))
        // "Test Provider" -> "Test Provideq": the signature no longer covers it.
        let name = Array("Test Provider".utf8)
        let at = try #require(
            (0...(bytes.count - name.count)).first { bytes[$0..<($0 + name.count)].elementsEqual(name) })
        bytes[at + name.count - 1] = UInt8(ascii: "q")
        let signed = try SignedVICAL(bytes: bytes)
        #expect(signed.vical.vicalProvider == "Test Provideq")
        let error = #expect(throws: VICALError.self) { try signed.verify(anchors: [fixture.root], at: Date()) }
        guard case .badSignature = error else {
            Issue.record("expected badSignature, got \(String(describing: error))")
            return
        }
    }

    @Test func anUntrustedSignerIsRefused() throws {
        let fixture = try VICALFixture()
        let other = try VICALFixture(name: "Other VICAL")
        let pki = try TestPKI.generate()
        let bytes = try fixture.sign(VICALFixture.payload(infos: [VICALFixture.info(pki.iaca, docTypes: [Self.mDL])]))
        let error = #expect(throws: VICALError.self) {
            try SignedVICAL(bytes: bytes).verify(anchors: [other.root], at: Date())
        }
        guard case .untrustedSigner = error else {
            Issue.record("expected untrustedSigner, got \(String(describing: error))")
            return
        }
    }

    @Test func aSignerWithoutTheVICALEKUIsRefused() throws {
        let fixture = try VICALFixture(signerEKU: false)
        let bytes = try fixture.sign(VICALFixture.payload(infos: []))
        let error = #expect(throws: VICALError.self) {
            try SignedVICAL(bytes: bytes).verify(anchors: [fixture.root], at: Date())
        }
        #expect(error == .signerNotForVICAL(subject: fixture.signer.subject))
    }

    @Test func aListPastItsNextUpdateIsRefused() throws {
        let fixture = try VICALFixture()
        let next = Date(timeIntervalSince1970: (Date().timeIntervalSince1970 - 60).rounded(.down))
        let bytes = try fixture.sign(
            VICALFixture.payload(infos: [], date: next.addingTimeInterval(-86_400), nextUpdate: next))
        let error = #expect(throws: VICALError.self) {
            try SignedVICAL(bytes: bytes).verify(anchors: [fixture.root], at: Date())
        }
        #expect(error == .expired(nextUpdate: RFC3339.string(from: next)))
        // The same list at a time before nextUpdate is accepted.
        _ = try SignedVICAL(bytes: bytes).verify(anchors: [fixture.root], at: next.addingTimeInterval(-10))
    }

    @Test func malformedListsNameWhatIsWrong() throws {
        let fixture = try VICALFixture()
        let pki = try TestPKI.generate()
        #expect(throws: VICALError.notSigned("malformed COSE structure: COSE_Sign1 is not an array of 4")) {
            try SignedVICAL(bytes: CBOR.map([]).encoded())
        }
        #expect(throws: VICALError.malformed("the payload is not a map (array)")) {
            try SignedVICAL(bytes: fixture.sign(.array([])))
        }
        var info = VICALFixture.info(pki.iaca, docTypes: [Self.mDL])
        if case .map(let entries) = info { info = .map(entries.filter { $0.key != "docType" }) }
        #expect(throws: VICALError.malformed("certificateInfos[0].docType is missing or not a non-empty array")) {
            try SignedVICAL(bytes: fixture.sign(VICALFixture.payload(infos: [info])))
        }
        let noProvider = CBOR.map([CBORMapEntry("version", "1.0"), CBORMapEntry("certificateInfos", .array([]))])
        #expect(throws: VICALError.malformed("VICAL.vicalProvider is missing: expected a text string")) {
            try SignedVICAL(bytes: fixture.sign(noProvider))
        }
    }

    /// An IACA the list names for the mDL authenticates an mDL, and not a PID it signed.
    @Test func anMDLIACADoesNotAuthenticateAPID() throws {
        let fixture = try VICALFixture()
        let pki = try TestPKI.generate()
        let bytes = try fixture.sign(VICALFixture.payload(infos: [VICALFixture.info(pki.iaca, docTypes: [Self.mDL])]))
        let verified = try SignedVICAL(bytes: bytes).verify(anchors: [fixture.root], at: Date())
        let trust = IssuerTrust(scopedAnchors: verified.scopedAnchors)
        let device = try PrivateKey.generate(.p256).publicKey
        func issue(_ docType: String, _ nameSpace: String) throws -> IssuerSigned {
            try MdocIssuer.issue(
                docType: docType, nameSpaces: [(nameSpace, [("family_name", .text("Doe"))])], deviceKey: device,
                documentSignerKey: pki.documentSignerKey, documentSignerChain: [pki.documentSigner],
                validFrom: Date().addingTimeInterval(-60), validUntil: Date().addingTimeInterval(86_400))
        }
        let mdl = IssuerDataAuthentication.verify(
            try issue(Self.mDL, "org.iso.18013.5.1"), docType: Self.mDL, trust: trust, at: Date())
        #expect(mdl.isValid, "\(mdl.failures)")
        #expect(mdl.trustAnchor == pki.iaca)
        let pid = IssuerDataAuthentication.verify(
            try issue(Self.pid, Self.pid), docType: Self.pid, trust: trust, at: Date())
        #expect(!pid.isValid)
        #expect(pid.trustAnchor == nil)
        #expect(
            pid.failures.contains { $0.contains("trusted for \(Self.mDL) only") && $0.contains("not for \(Self.pid)") })
        // The same IACA as a PEM anchor (unscoped) authenticates both.
        let pem = IssuerDataAuthentication.verify(
            try issue(Self.pid, Self.pid), docType: Self.pid, trust: IssuerTrust(anchors: [pki.iaca]), at: Date())
        #expect(pem.isValid, "\(pem.failures)")
    }
}

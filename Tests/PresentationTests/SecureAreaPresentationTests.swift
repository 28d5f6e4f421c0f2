import Foundation
import ISO18013
import MdocCrypto
import Presentation
import SecureArea
import TestSupport
import Testing

/// Presentation with device keys in secure areas: the area signs the deviceSignature and does
/// the ECDH of the deviceMac, the reader verifies both; a key that cannot be used ends the
/// session with status 10 and a reason naming the credential and the area.
@Suite(.serialized) struct SecureAreaPresentationTests {
    typealias D = AnnexDCredential

    /// The Annex D credential with its key moved into a software area under `kek`.
    static func annexDCredential(in area: SoftwareSecureArea) throws -> PresentableCredential {
        let plain = try D.credential()
        let key = try PrivateKey(curve: .p256, rawPrivateKey: Vectors.annexD("SDeviceKey_private_d"))
        let stored = try area.importKey(key, passphrase: nil)
        return PresentableCredential(
            id: plain.id, docType: plain.docType, issuerSigned: plain.issuerSigned,
            deviceKey: try SecureAreaKey(stored, in: area))
    }

    @Test(arguments: [DeviceAuthMode.signature, .mac])
    func aSoftwareAreaKeyAuthenticatesTheDocument(_ mode: DeviceAuthMode) throws {
        let credential = try Self.annexDCredential(in: SoftwareSecureArea(source: .given(.ephemeral())))
        var config = HolderConfiguration()
        config.deviceAuth = mode
        var x = try InMemoryExchange(credentials: [credential], configuration: config, iacas: [D.iaca], time: D.time)
        let response = try #require(try x.request([D.request(["family_name"])])?.verified)
        #expect(response.isValid, "\(response.documents.flatMap(\.failures))")
        #expect(response.documents.first?.deviceAuthKind == (mode == .mac ? "deviceMac" : "deviceSignature"))
    }

    @Test(arguments: [DeviceAuthMode.signature, .mac])
    func aTPMKeyAuthenticatesACredentialIssuedToIt(_ mode: DeviceAuthMode) throws {
        let tpm = try SoftwareTPM()
        let area = TPM2SecureArea(tcti: tpm.tcti)
        let stored = try area.createKey(KeySettings(curve: .p256))
        let issued = try IssuedCredentials()
        let credential = try issued.issue(deviceKey: SecureAreaKey(stored, in: area))
        var config = HolderConfiguration()
        config.deviceAuth = mode
        var x = try InMemoryExchange(
            credentials: [credential], configuration: config, iacas: [issued.pki.iaca], time: issued.now)
        let response = try #require(
            try x.request([
                ItemsRequest(
                    docType: IssuedCredentials.mDL,
                    nameSpaces: [.init(IssuedCredentials.ns, [.init("family_name", intentToRetain: false)])])
            ])?.verified)
        #expect(response.isValid, "\(response.documents.flatMap(\.failures))")
        #expect(response.documents.first?.deviceAuthKind == (mode == .mac ? "deviceMac" : "deviceSignature"))
    }

    @Test func aKeyThatCannotBeUsedEndsTheSessionWithStatus10NamingCredentialAndArea() throws {
        let dir = NSTemporaryDirectory() + "kek-\(UUID().uuidString)"
        let area = SoftwareSecureArea(source: .userConfiguration(path: dir + "/kek"))
        let credential = try Self.annexDCredential(in: area)
        // The KEK goes away (a store copied to another machine, a missing systemd credential).
        try FileManager.default.removeItem(atPath: dir)
        let reopened = PresentableCredential(
            id: "cred-1", docType: credential.docType, issuerSigned: credential.issuerSigned,
            deviceKey: try SecureAreaKey(
                (credential.deviceKey as! SecureAreaKey).stored,
                in: SoftwareSecureArea(source: .file(path: dir + "/kek"))))
        var x = try InMemoryExchange(credentials: [reopened], iacas: [D.iaca], time: D.time)
        let event = try x.request([D.request(["family_name"])])
        guard case .response(let response, _, let ended) = try #require(event) else {
            Issue.record("no response: \(String(describing: event))")
            return
        }
        #expect(response.status == DeviceResponseStatus.generalError.rawValue)
        #expect(response.documents.isEmpty)
        #expect(ended)
        guard case .deviceKeyUnusable(let why) = try #require(x.terminations.last) else {
            Issue.record("terminated for another reason: \(x.terminations)")
            return
        }
        #expect(why.contains("cred-1"))
        #expect(why.contains("software secure area"))
        #expect(why.contains(dir + "/kek"))
        #expect(x.holder.isEnded)
        guard case .notReturned(let reason) = try #require(x.records.first?.outcome) else {
            Issue.record("recorded as \(x.records)")
            return
        }
        #expect(reason == why)
    }
}

import Foundation
import MdocCrypto
import MdocIssuer
import OpenID4VP
import Presentation
import SecureArea
import Testing

/// Online presentation with a device key that cannot be used: the verifier gets server_error
/// without local detail; the holder's side learns the credential and the secure area.
struct UnusableDeviceKeyTests {
    @Test func aKeyWithoutItsKEKIsAServerErrorThatNamesCredentialAndAreaLocallyOnly() throws {
        let wallet = try TestWallet()
        let kekPath = NSTemporaryDirectory() + "absent-kek-\(UUID().uuidString)"
        let stored = try SoftwareSecureArea(source: .given(.ephemeral())).createKey(KeySettings())
        let key = try SecureAreaKey(stored, in: SoftwareSecureArea(source: .file(path: kekPath)))
        let issuerSigned = try MdocIssuer.issue(
            docType: TestWallet.mDL,
            nameSpaces: [(TestWallet.ns, [("family_name", "Mustermann"), ("given_name", "Erika")])],
            deviceKey: key.publicKey, documentSignerKey: wallet.pki.documentSignerKey,
            documentSignerChain: [wallet.pki.documentSigner], validFrom: wallet.now.addingTimeInterval(-60),
            validUntil: wallet.now.addingTimeInterval(86400))
        let credential = PresentableCredential(
            id: "cred-online", docType: TestWallet.mDL, issuerSigned: issuerSigned, deviceKey: key)
        let v = try TestVerifier()
        let verified = try v.verifier.verify(
            requestObject: try v.sign(TestVerifier.payload(metadata: try v.metadata())), clientID: TestVerifier.clientID
        )
        let match = try DCQLMatcher.match(
            verified.request.dcqlQuery, credentials: [credential], requester: verified.requester,
            clientMetadata: verified.request.clientMetadata)
        let parameters = try ResponseParameters(request: verified.request)
        #expect {
            _ = try parameters.successResponse(for: match, decision: .approveAll(match.consentRequest))
        } throws: { error in
            guard let error = error as? AuthorizationError, error.code == .serverError else { return false }
            let detail = error.localDetail ?? ""
            return error.description == "device authentication failed" && !error.description.contains(kekPath)
                && detail.contains("cred-online") && detail.contains("software secure area") && detail.contains(kekPath)
        }
    }
}

import CBOR
import Foundation
import ISO18013
import MdocCrypto
import MdocIssuer
import Presentation

/// The reader's verification of a DeviceResponse (what `mdoc-reader verify` and
/// `mdoc-reader request` do): the document signer's chain to the IACA, the MSO signature,
/// every element's digest and the deviceSignature, for the holder benchmark's mDL (20
/// elements and a 60 kB portrait). Its floor: three ECDSA verifications (document signer
/// certificate, MSO, device signature) and SHA-256 over every IssuerSignedItemBytes.
enum ReaderVerificationBenchmark {
    static func run(iterations: Int, openssl: OpenSSLFloor) throws {
        let pki = try TestPKI.generate()
        let deviceKey = try PrivateKey.generate(.p256)
        let elements: [(String, CBOR)] =
            (0..<20).map { ("element_\($0)", CBOR.text("value \($0)")) }
            + [("portrait", .bytes([0xFF, 0xD8] + SecureRandom.bytes(60_000 - 4) + [0xFF, 0xD9]))]
        let now = Date()
        let docType = HolderTransactionBenchmark.mDL
        let issuerSigned = try MdocIssuer.issue(
            docType: docType, nameSpaces: [(HolderTransactionBenchmark.ns, elements)],
            deviceKey: deviceKey.publicKey, documentSignerKey: pki.documentSignerKey,
            documentSignerChain: [pki.documentSigner], validFrom: now.addingTimeInterval(-60),
            validUntil: now.addingTimeInterval(86400))
        let transcript = SessionTranscript(handover: ["benchmark"])
        let deviceSigned = try DeviceAuthentication.sign(
            transcript: transcript, docType: docType, deviceKey: deviceKey, algorithm: .es256)
        let response = DeviceResponse(documents: [
            Document(docType: docType, issuerSigned: issuerSigned, deviceSigned: deviceSigned)
        ]).encoded
        let items = issuerSigned.nameSpaces.flatMap(\.items).map(\.bytes.taggedEncoding)

        let parse = try Measurement.run("  DeviceResponse parse (\(response.count) B)", iterations: iterations) {
            _ = try DeviceResponse(bytes: response)
        }
        let verify = try Measurement.run("reader: verify DeviceResponse (21 elements)", iterations: iterations) {
            let verified = try ResponseVerifier.verify(
                response, transcript: transcript, trustAnchors: [pki.iaca], eReaderKey: nil, at: now)
            precondition(verified.isValid)
        }
        let verifies = Measurement.run("floor", iterations: iterations) { openssl.ecdsaVerify() }
        let digests = Measurement.run("floor", iterations: iterations) { for item in items { openssl.sha256(item) } }
        let floor = 3 * verifies.medianMicroseconds + digests.medianMicroseconds
        print("reader side (mdoc-reader verify): chain, MSO, digests, deviceSignature")
        print(Comparison(ours: verify, floorMicroseconds: floor).line())
        print(parse.line(extra: "(of which CBOR, no floor)"))
    }
}

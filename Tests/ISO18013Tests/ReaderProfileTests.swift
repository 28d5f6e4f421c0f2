import CBOR
import COSE
import ISO18013
import MdocCrypto
import TestSupport
import Testing

/// The reader certificate profile (Annex B: the mdoc reader authentication EKU,
/// digitalSignature, not a CA) is checked on every readerAuth. A certificate seen again is the
/// same parsed object with its extensions decoded once (`Certificate.cached(der:)`); two
/// certificates arriving in turn each keep their own result, every time.
struct ReaderProfileTests {
    static func readerAuth(by signer: ReceivedBytesSigner) throws -> (COSESign1, [UInt8]) {
        let transcript = try SessionTranscript(bytes: Vectors.annexD("SessionTranscriptBytes"))
        let items = try DeviceRequest(bytes: Vectors.annexD("DeviceRequest")).docRequests[0].itemsRequestBytes
        let auth = try ReaderAuthentication.sign(
            transcript: transcript, itemsRequestBytes: items, key: signer.key, algorithm: signer.algorithm,
            certificateChain: [signer.leaf])
        // As received: the x5chain's certificate is parsed from the bytes, not the signer's object.
        let received = try COSESign1(cbor: CBOR.decode(auth.cbor.encoded()))
        return (received, ReaderAuthentication.bytes(transcript: transcript, itemsRequestBytes: items))
    }

    @Test func aCertificateWithoutTheReaderEKUIsUntrustedEachTimeAndAGoodOneTrusted() throws {
        let good = try ReceivedBytesSigner(eku: ReaderAuthentication.readerAuthEKU)
        let wrongEKU = try ReceivedBytesSigner(eku: IssuerDataAuthentication.documentSignerEKU)
        let (goodAuth, goodPayload) = try Self.readerAuth(by: good)
        let (badAuth, badPayload) = try Self.readerAuth(by: wrongEKU)
        for _ in 0..<3 {
            let bad = ReaderAuthentication.verify(
                badAuth, payloads: [badPayload], trustAnchors: [wrongEKU.root], at: ReceivedBytesSigner.now)
            #expect(bad.status == .untrusted)
            #expect(bad.failure?.contains("lacks the mdoc reader authentication EKU") == true, "\(bad.failure ?? "")")
            let trusted = ReaderAuthentication.verify(
                goodAuth, payloads: [goodPayload], trustAnchors: [good.root], at: ReceivedBytesSigner.now)
            #expect(trusted.status == .trusted, "\(trusted.failure ?? "")")
        }
    }
}

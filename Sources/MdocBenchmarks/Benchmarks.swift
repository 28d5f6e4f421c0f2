import CBOR
import COSE
import Foundation
import ISO18013
import MdocCrypto

/// Prints CBOR throughput on the Annex D DeviceResponse and the crypto floor of one holder
/// transaction on P-256. Later engine benchmarks are measured against this floor.
@main
struct Benchmarks {
    static func main() throws {
        let arguments = CommandLine.arguments
        let fast = arguments.contains("--quick")
        let scale = fast ? 10 : 1
        let tcti = arguments.firstIndex(of: "--tpm-tcti").flatMap {
            arguments.indices.contains($0 + 1) ? arguments[$0 + 1] : nil
        }
        if arguments.contains("--secure-areas") {
            // Only the secure-area latencies (`mdoc-benchmarks --secure-areas [--tpm-tcti TCTI]`).
            return try SecureAreaBenchmark.run(iterations: 200 / scale, tcti: tcti)
        }
        print("mdoc-benchmarks (\(fast ? "quick" : "full") run; CPU time of one thread; release build recommended)")
        print()
        try cbor(iterations: 5000 / scale)
        print()
        let floor = try cryptoFloor(iterations: 500 / scale)
        print()
        try HolderTransactionBenchmark.run(iterations: 200 / scale, floor: floor)
        print()
        try SecureAreaBenchmark.run(iterations: 200 / scale, tcti: tcti)
    }

    static func cbor(iterations: Int) throws {
        let response = AnnexD.bytes("DeviceResponse")
        let value = try CBOR.decode(response)
        let decode = try Measurement.run("CBOR decode DeviceResponse (\(response.count) B)", iterations: iterations) {
            _ = try CBOR.decode(response)
        }
        let encode = Measurement.run("CBOR encode DeviceResponse (\(response.count) B)", iterations: iterations) {
            _ = value.encoded()
        }
        let parse = try Measurement.run("DeviceResponse parse (model)", iterations: iterations) {
            _ = try DeviceResponse(bytes: response)
        }
        for m in [decode, encode, parse] {
            let mbps = Double(response.count) / m.medianMicroseconds
            print(m.line(extra: String(format: "%7.1f MB/s", mbps)))
        }
    }

    /// Every cryptographic operation of one holder transaction with reader authentication
    /// and a device signature, nothing else.
    @discardableResult
    static func cryptoFloor(iterations: Int) throws -> Double {
        let reader = try PrivateKey.generate(.p256)
        let readerPublic = reader.publicKey
        let transcript = try SessionTranscript(bytes: AnnexD.bytes("SessionTranscriptBytes"))
        let request = AnnexD.bytes("DeviceRequest")
        let response = SecureRandom.bytes(60_000)
        let ekey = try PrivateKey.generate(.p256)
        let z = try ekey.sharedSecret(with: readerPublic)
        let skReader = try HKDF.sha256(ikm: z, salt: transcript.salt, info: Array("SKReader".utf8), length: 32)
        let skDevice = try HKDF.sha256(ikm: z, salt: transcript.salt, info: Array("SKDevice".utf8), length: 32)
        let readerIV: [UInt8] = [0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1]
        let mdocIV: [UInt8] = [0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0, 1]
        let encryptedRequest = try AESGCM.seal(request, key: skReader, iv: readerIV)
        let deviceRequest = try DeviceRequest(bytes: request)
        let readerRoot = try Certificate(der: AnnexD.bytes("ReaderRoot_certificate"))
        let readerAuthTime = RFC3339.date(from: "2022-06-01T00:00:00Z")!
        let deviceKey = try PrivateKey.generate(.p256)
        let deviceAuthentication = DeviceAuthentication.bytes(
            transcript: transcript, docType: "org.iso.18013.5.1.mDL",
            nameSpacesBytes: DeviceAuthentication.emptyNameSpaces)

        var parts: [Measurement] = []
        parts.append(
            try Measurement.run("P-256 key generation (EDeviceKey)", iterations: iterations) {
                _ = try PrivateKey.generate(.p256)
            })
        parts.append(
            try Measurement.run("ECDH P-256", iterations: iterations) {
                _ = try ekey.sharedSecret(with: readerPublic)
            })
        parts.append(
            try Measurement.run("HKDF-SHA256 x2 (SKReader, SKDevice)", iterations: iterations) {
                _ = try HKDF.sha256(ikm: z, salt: transcript.salt, info: Array("SKReader".utf8), length: 32)
                _ = try HKDF.sha256(ikm: z, salt: transcript.salt, info: Array("SKDevice".utf8), length: 32)
            })
        parts.append(
            try Measurement.run("AES-256-GCM decrypt request (\(request.count) B)", iterations: iterations) {
                _ = try AESGCM.open(encryptedRequest, key: skReader, iv: readerIV)
            })
        parts.append(
            try Measurement.run("AES-256-GCM encrypt response (60000 B)", iterations: iterations) {
                _ = try AESGCM.seal(response, key: skDevice, iv: mdocIV)
            })
        parts.append(
            Measurement.run("reader auth verify + chain (Annex D)", iterations: iterations) {
                let r = ReaderAuthentication.verify(
                    docRequest: deviceRequest.docRequests[0], in: deviceRequest, transcript: transcript,
                    trustAnchors: [readerRoot], at: readerAuthTime)
                precondition(r.isTrusted)
            })
        parts.append(
            try Measurement.run("device signature ES256", iterations: iterations) {
                _ = try COSESign1.sign(payload: deviceAuthentication, detached: true, key: deviceKey, algorithm: .es256)
            })
        for p in parts { print(p.line()) }
        let total = parts.map(\.medianMicroseconds).reduce(0, +)
        let label = "crypto floor per holder transaction".padding(toLength: 48, withPad: " ", startingAt: 0)
        print(label + String(format: "%10.1f us (sum of the medians above)", total))
        return total
    }
}

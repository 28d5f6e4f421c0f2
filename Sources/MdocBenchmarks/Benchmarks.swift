import CBOR
import COSE
import Foundation
import ISO18013
import MdocCrypto

/// Prints CBOR throughput, then each cryptographic operation of a holder transaction, of the
/// reader's verification and of the online flow through our types beside OpenSSL's own cost
/// for the same work (``OpenSSLFloor``: direct EVP calls, everything fetched beforehand), then
/// the holder engine's CPU per transaction as a ratio to the sum of those floors.
@main
struct Benchmarks {
    static func main() throws {
        let arguments = CommandLine.arguments
        let fast = arguments.contains("--quick")
        let scale = fast ? 10 : 1
        let tcti: String? = arguments.firstIndex(of: "--tpm-tcti").flatMap {
            arguments.indices.contains($0 + 1) ? arguments[$0 + 1] : nil
        }
        if arguments.contains("--secure-areas") {
            // Only the secure-area latencies (`mdoc-benchmarks --secure-areas [--tpm-tcti TCTI]`).
            let areas = BenchmarkAreas(tcti: tcti)
            defer { areas.stop() }
            return try SecureAreaBenchmark.run(iterations: 200 / scale, areas: areas)
        }
        print("mdoc-benchmarks (\(fast ? "quick" : "full") run; CPU time of one thread; release build recommended)")
        // `--only holder|reader|online` runs one part (for a profiler).
        let only: String? = arguments.firstIndex(of: "--only").flatMap {
            arguments.indices.contains($0 + 1) ? arguments[$0 + 1] : nil
        }
        let openssl = try OpenSSLFloor()
        // Made once: a PKCS#11 module reads its configuration (softhsm2's token directory) once
        // per process.
        var made: BenchmarkAreas?
        func areas() -> BenchmarkAreas {
            if let made { return made }
            let areas = BenchmarkAreas(tcti: tcti)
            made = areas
            return areas
        }
        defer { made?.stop() }
        if only == nil {
            print()
            try cbor(iterations: 5000 / scale)
        }
        if only == nil || only == "holder" {
            print()
            let work = try cryptoFloor(iterations: 500 / scale, openssl: openssl)
            print()
            try HolderTransactionBenchmark.run(iterations: 200 / scale, floor: work, areas: areas())
        }
        if only == nil || only == "reader" {
            print()
            try ReaderVerificationBenchmark.run(iterations: 200 / scale, openssl: openssl)
        }
        if only == nil || only == "online" {
            print()
            try OnlineBenchmark.run(iterations: 300 / scale, openssl: openssl)
        }
        if only == nil || only == "secure-areas" {
            print()
            try SecureAreaBenchmark.run(iterations: 200 / scale, areas: areas())
        }
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

    /// A time at which the Annex D reader certificate is valid.
    static let readerAuthTime = RFC3339.date(from: "2022-06-01T00:00:00Z")!

    /// Every cryptographic operation of one holder transaction with reader authentication
    /// and a device signature, each beside OpenSSL's floor for it (``FloorWork``), and the sum
    /// of the floors: the least CPU a holder transaction can take with OpenSSL. Returns the
    /// floor's work, for the holder transaction to be measured beside.
    static func cryptoFloor(iterations: Int, openssl: OpenSSLFloor) throws -> FloorWork {
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
        let work = try FloorWork(
            openssl: openssl, z: z.bytes, salt: transcript.salt, request: request, response: response)

        func floor(_ part: FloorWork.Part) -> Double {
            part.times * Measurement.run("floor", iterations: iterations, part.run).medianMicroseconds
        }
        var parts: [Comparison] = []
        parts.append(
            Comparison(
                ours: try Measurement.run("P-256 key generation (EDeviceKey)", iterations: iterations) {
                    _ = try PrivateKey.generate(.p256)
                }, floorMicroseconds: floor(work.keyGeneration)))
        parts.append(
            Comparison(
                ours: try Measurement.run("ECDH P-256", iterations: iterations) {
                    _ = try ekey.sharedSecret(with: readerPublic)
                }, floorMicroseconds: floor(work.ecdh)))
        parts.append(
            Comparison(
                ours: try Measurement.run("HKDF-SHA256 x2 (SKReader, SKDevice)", iterations: iterations) {
                    _ = try HKDF.sha256(ikm: z, salt: transcript.salt, info: Array("SKReader".utf8), length: 32)
                    _ = try HKDF.sha256(ikm: z, salt: transcript.salt, info: Array("SKDevice".utf8), length: 32)
                }, floorMicroseconds: floor(work.hkdf)))
        parts.append(
            Comparison(
                ours: try Measurement.run("AES-256-GCM decrypt request (\(request.count) B)", iterations: iterations) {
                    _ = try AESGCM.open(encryptedRequest, key: skReader, iv: readerIV)
                }, floorMicroseconds: floor(work.decryptRequest)))
        parts.append(
            Comparison(
                ours: try Measurement.run("AES-256-GCM encrypt response (60000 B)", iterations: iterations) {
                    _ = try AESGCM.seal(response, key: skDevice, iv: mdocIV)
                }, floorMicroseconds: floor(work.encryptResponse)))
        parts += try authenticationComparisons(
            iterations: iterations, floor: floor, work: work, transcript: transcript, deviceRequest: deviceRequest,
            readerRoot: readerRoot)
        printTable(parts)
        try coldReaderAuthentication(
            iterations: iterations, deviceRequest: deviceRequest, transcript: transcript, readerRoot: readerRoot)
        return work
    }

    /// Reader authentication and the device signature, each beside its floor.
    static func authenticationComparisons(
        iterations: Int, floor: (FloorWork.Part) -> Double, work: FloorWork, transcript: SessionTranscript,
        deviceRequest: DeviceRequest, readerRoot: Certificate
    ) throws -> [Comparison] {
        let deviceKey = try PrivateKey.generate(.p256)
        let deviceAuthentication = DeviceAuthentication.bytes(
            transcript: transcript, docType: "org.iso.18013.5.1.mDL",
            nameSpacesBytes: DeviceAuthentication.emptyNameSpaces)
        // The reader's chain is its certificate under the configured root: one verification
        // for the certificate, one for the readerAuth signature.
        return [
            Comparison(
                ours: Measurement.run("reader auth verify + chain (Annex D)", iterations: iterations) {
                    let r = ReaderAuthentication.verify(
                        docRequest: deviceRequest.docRequests[0], in: deviceRequest, transcript: transcript,
                        trustAnchors: [readerRoot], at: Self.readerAuthTime)
                    precondition(r.isTrusted)
                }, floorMicroseconds: floor(work.verify)),
            Comparison(
                ours: try Measurement.run("device signature ES256", iterations: iterations) {
                    _ = try COSESign1.sign(
                        payload: deviceAuthentication, detached: true, key: deviceKey, algorithm: .es256)
                }, floorMicroseconds: floor(work.sign)),
        ]
    }

    /// Prints each comparison, then the sums of the medians, ours and the floors'.
    static func printTable(_ parts: [Comparison]) {
        for p in parts { print(p.line()) }
        let ours = parts.map(\.ours.medianMicroseconds).reduce(0, +)
        let total = parts.map(\.floorMicroseconds).reduce(0, +)
        let label = "crypto of one holder transaction".padding(toLength: 48, withPad: " ", startingAt: 0)
        print(
            label
                + String(
                    format: "%10.1f us   floor %8.1f us   x%.2f (sums of the medians above)", ours, total, ours / total)
        )
    }

    /// The first readerAuth of a reader certificate not seen before: the certificate is
    /// parsed (OpenSSL 3.0 decodes its key through the generic decoder) and its key read.
    static func coldReaderAuthentication(
        iterations: Int, deviceRequest: DeviceRequest, transcript: SessionTranscript, readerRoot: Certificate
    ) throws {
        let readerDER = AnnexD.bytes("Reader_certificate")
        let certificates = try (0..<iterations + 10).map { _ in try Certificate(der: readerDER) }
        var next = 0
        let cold = Measurement.run("  the same, certificate not seen before", iterations: iterations) {
            let leaf = certificates[next]
            next += 1
            _ = CertificateChainValidator.validate(chain: [leaf], anchors: [readerRoot], at: Self.readerAuthTime)
            _ = try? deviceRequest.docRequests[0].readerAuth!.isValidDetachedSignature(
                over: ReaderAuthentication.bytes(
                    transcript: transcript, itemsRequestBytes: deviceRequest.docRequests[0].itemsRequestBytes),
                key: leaf.publicKey)
        }
        let parse = Measurement.run("  certificate parse (DER to X509)", iterations: iterations) {
            _ = try? Certificate(der: readerDER)
        }
        print(cold.line(extra: "(+ parse below)"))
        print(parse.line())
    }
}

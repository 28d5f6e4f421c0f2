import CBOR
import Consent
import Foundation
import ISO18013
import MdocCrypto
import MdocIssuer
import Presentation
import SecureArea

/// The holder engine's CPU per transaction: an mDL of 20 elements plus a 60 kB portrait,
/// reader authentication on, deviceSignature; from the reader's SessionEstablishment to the
/// encrypted DeviceResponse, plus the EDeviceKey generation. The reader's own work is done
/// outside the timed part. Printed beside the OpenSSL floor of its cryptography
/// (``FloorWork``, one ES256 signature with an in-memory key), as a ratio, once per device key:
/// in memory, then in each secure area reached. The EDeviceKey generation and every part of
/// the floor are timed after each transaction, in turn, so that both sides of the ratio run
/// under the same load; the engine's line shows that key generation time, which the holder
/// CPU line adds to the engine's. The reader presents the same certificate every time, as a
/// shop's or a police reader does.
enum HolderTransactionBenchmark {
    static let mDL = "org.iso.18013.5.1.mDL"
    static let ns = "org.iso.18013.5.1"

    /// One run per device key: an in-memory key, then a key in each secure area `areas` reached.
    static func run(iterations: Int, floor work: FloorWork, areas: BenchmarkAreas) throws {
        let pki = try TestPKI.generate()
        print("holder transaction: mDL, 20 elements + 60 kB portrait, reader auth, deviceSignature")
        var keys: [(String, any DeviceKey, Bool)] = [("in-memory key", try PrivateKey.generate(.p256), false)]
        for area in areas.reachable {
            keys.append(("\(area.name) secure area", area.deviceKey, area.outsideProcess))
        }
        let generate = {
            guard (try? PrivateKey.generate(.p256)) != nil else { preconditionFailure("EDeviceKey generation") }
        }
        for (label, deviceKey, outside) in keys {
            // A TPM transaction takes milliseconds: fewer runs.
            let runs = outside ? max(iterations / 4, 10) : iterations
            let (engine, beside) = try transaction(
                iterations: runs, pki: pki, deviceKey: deviceKey, beside: [generate] + work.parts.map(\.run))
            let ownKeygen = beside[0]
            let floor = zip(work.parts, beside.dropFirst()).map { $0.times * $1 }.reduce(0, +)
            let total = ownKeygen + engine.medianMicroseconds
            print(
                engine.line(
                    extra: "(\(label), response \(responseBytes) B)"
                        + String(format: " + EDeviceKey generation %.1f us, timed beside it", ownKeygen)))
            var line =
                "holder CPU per transaction, \(label): "
                + String(format: "%.1f us   OpenSSL floor %.1f us   ratio %.2f", total, floor, total / floor)
            if outside {
                line += String(
                    format: "   wall-clock per transaction %.1f us", ownKeygen + engine.wallMedianMicroseconds)
            } else {
                line += " (target <= 1.50)"
            }
            print(line)
        }
        for (name, reason) in areas.unreachable {
            print("holder CPU per transaction, \(name) secure area: not measured (\(reason))")
        }
    }

    /// The size of the last response made (for the label).
    nonisolated(unsafe) static var responseBytes = 0

    /// The engine's part of a transaction with `deviceKey`: establishment to encrypted response;
    /// each of `beside` timed after each transaction (their medians returned).
    static func transaction(
        iterations: Int, pki: TestPKI, deviceKey: any DeviceKey, beside: [() -> Void]
    ) throws -> (Measurement, [Double]) {
        var elements: [(String, CBOR)] = [
            ("family_name", "Mustermann"), ("given_name", "Erika"), ("birth_date", .fullDate("1971-09-01")),
            ("issue_date", .fullDate("2024-01-01")), ("expiry_date", .fullDate("2034-01-01")),
            ("issuing_country", "US"), ("issuing_authority", "Utopia DMV"), ("document_number", "T1234567"),
            ("un_distinguishing_sign", "USA"), ("sex", 2), ("height", 175), ("weight", 70), ("eye_colour", "blue"),
            ("hair_colour", "brown"), ("resident_city", "Utopia"), ("nationality", "US"),
            ("age_over_18", true), ("age_over_21", true), ("age_over_65", false),
            ("driving_privileges", [["vehicle_category_code": "B", "issue_date": .fullDate("2024-01-01")]]),
        ]
        elements.append(("portrait", .bytes([0xFF, 0xD8] + SecureRandom.bytes(60_000 - 4) + [0xFF, 0xD9])))
        let now = Date()
        let issuerSigned = try MdocIssuer.issue(
            docType: mDL, nameSpaces: [(ns, elements)], deviceKey: deviceKey.publicKey,
            documentSignerKey: pki.documentSignerKey, documentSignerChain: [pki.documentSigner],
            validFrom: now.addingTimeInterval(-60), validUntil: now.addingTimeInterval(86400))
        let credential = PresentableCredential(
            id: "bench", docType: mDL, issuerSigned: issuerSigned, deviceKey: deviceKey)
        let request = ItemsRequest(docType: mDL, nameSpaces: [.init(ns, elements.map { .init($0.0) })])
        let config = HolderConfiguration(readerTrustAnchors: [pki.readerCA], untrustedReaders: .refuse)
        let identity = ReaderIdentity(key: pki.readerKey, chain: [pki.reader])

        // The reader's side of each transaction, made untimed before it.
        let readerSide = { () throws -> (PrivateKey, DeviceEngagement, [UInt8]) in
            let key = try PrivateKey.generate(.p256)
            let engagement = DeviceEngagement(
                eDeviceKey: key.publicKey,
                retrievalMethods: [.ble(version: 1, BleOptions(peripheralServerMode: true, centralClientMode: false))])
            var reader = try ReaderSession(engagement: engagement, trustAnchors: [pki.iaca], identity: identity)
            return (key, engagement, try reader.establishment(requesting: [request]))
        }
        let engine = { (input: (PrivateKey, DeviceEngagement, [UInt8])) in
            var holder = HolderSession(
                engagement: input.1, eDeviceKey: input.0, credentials: [credential], configuration: config, now: now)
            var outputs = holder.receive(input.2, at: now)
            guard case .consentNeeded(let consent)? = outputs.last else { fatalError("no consent request") }
            outputs = holder.consent(.approveAll(consent), at: now)
            guard case .send(let bytes) = outputs.first else { fatalError("no response (\(outputs))") }
            responseBytes = bytes.count
        }
        return try Measurement.run(
            "  establishment -> consent -> response", iterations: iterations, setup: readerSide, engine, beside: beside)
    }
}

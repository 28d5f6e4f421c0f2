import CBOR
import Consent
import ConsentPolicy
import Foundation
import ISO18013
import MdocCrypto
import Presentation
import QRCode
import SecureArea
import TerminalConsent
import Wallet

/// The whole presentation path on one machine, in one process, with the committed test
/// data: import into a store, a fresh engagement shown as a QR code, a reader with reader
/// authentication, kiosk-policy consent, selective disclosure, the reader's full
/// verification, the history entry. The two engines talk over memory (`make demo` then runs
/// the same over Bluetooth LE with BlueZoo).
@main
struct Demo {
    static func main() async {
        // mdoc-demo [FIXTURES_DIR] [--consent tty]: the kiosk policy answers unless asked to
        // prompt on the terminal.
        let args = Array(CommandLine.arguments.dropFirst())
        let onTerminal = args.contains("--consent") && args.contains("tty")
        let fixtures = args.first { !$0.hasPrefix("--") && $0 != "tty" } ?? "Fixtures"
        do {
            try await run(fixtures: URL(fileURLWithPath: fixtures), onTerminal: onTerminal)
        } catch {
            FileHandle.standardError.write(Data("mdoc-demo: \(error)\n".utf8))
            exit(1)
        }
    }

    static func file(_ dir: URL, _ name: String) throws -> String {
        try String(contentsOf: dir.appendingPathComponent(name), encoding: .utf8)
    }

    static func run(fixtures: URL, onTerminal: Bool) async throws {
        let iaca = try Certificate.parsePEM(file(fixtures, "pki/iaca.pem"))
        let readerCA = try Certificate.parsePEM(file(fixtures, "pki/reader-ca.pem"))
        let reader = ReaderIdentity(
            key: try PrivateKey(pem: file(fixtures, "pki/reader.key.pem")),
            chain: try Certificate.parsePEM(file(fixtures, "pki/reader.pem")))

        let dir = URL(fileURLWithPath: NSTemporaryDirectory()).appendingPathComponent("mdoc-demo-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: dir) }
        let store = try importStore(in: dir, fixtures: fixtures, trustAnchors: iaca)
        let (engagement, eDeviceKey) = try freshEngagement()

        // 3. The reader scans it and asks, signing its request.
        var readerSession = try ReaderSession(
            engagement: DeviceEngagement(uri: engagement.uri), trustAnchors: iaca, identity: reader)
        let establishment = try readerSession.establishment(requesting: [request])
        section("3. Reader: SessionEstablishment, \(establishment.count) bytes, reader-authenticated")

        // 4. The holder decrypts, authenticates the reader, asks the kiosk policy, answers.
        let policy = try kioskPolicy(fixtures)
        var holder = HolderSession(
            engagement: engagement, eDeviceKey: eDeviceKey, credentials: try store.presentableCredentials(),
            configuration: HolderConfiguration(readerTrustAnchors: readerCA, untrustedReaders: .refuse))
        let (reply, records) = try await answer(
            establishment, holder: &holder, policy: onTerminal ? nil : policy)
        try store.record(records, channel: .ble)

        // 5. The reader verifies everything.
        guard case .response(let verified, _, _) = try readerSession.receive(reply) else {
            throw DemoError("the holder sent no response")
        }
        printVerified(verified, replyBytes: reply.count)
        _ = holder.transportClosed()

        // 6. The history keeps who, when, what; never values.
        section("6. Holder: history")
        for h in try store.history() {
            print(
                "   \(RFC3339.string(from: h.time))  \(h.channel.rawValue)  \(h.requesterName)  \(h.docType)  \(h.decision.name): \(h.elementsSent.joined(separator: ", "))"
            )
        }
        print(
            "\n(The engines talked over memory here; `mdoc-holder present` and `mdoc-reader request` do it over Bluetooth LE.)"
        )
    }

    /// 1. The holder's store, with the test mDL.
    static func importStore(in dir: URL, fixtures: URL, trustAnchors: [Certificate]) throws -> CredentialStore {
        let store = try CredentialStore(path: dir.appendingPathComponent("wallet.sqlite").path, secureAreas: .inMemory)
        _ = try store.import(
            fileBytes: [UInt8](Data(contentsOf: fixtures.appendingPathComponent("mdl.cbor"))),
            deviceKeyPEM: file(fixtures, "mdl-device-key.pem"), trustAnchors: trustAnchors)
        section("1. Holder: imported the test mDL into a new store")
        for c in try store.list() {
            print(
                "   \(c.id)  \(c.docType)  \(c.elements.count) elements, valid until \(RFC3339.string(from: c.validUntil))"
            )
        }
        return store
    }

    /// 2. A fresh engagement, as the QR code the reader scans; and its ephemeral key.
    static func freshEngagement() throws -> (DeviceEngagement, PrivateKey) {
        let eDeviceKey = try PrivateKey.generate(.p256)
        let engagement = DeviceEngagement(
            eDeviceKey: eDeviceKey.publicKey,
            retrievalMethods: [
                .ble(
                    version: 1,
                    BleOptions(
                        peripheralServerMode: true, centralClientMode: false,
                        peripheralServerUUID: SecureRandom.bytes(16)))
            ])
        section("2. Holder: device engagement (fresh key)")
        print(try QRCode(text: engagement.uri).terminalString())
        print("   \(engagement.uri)")
        return (engagement, eDeviceKey)
    }

    /// What the reader asks for (step 3).
    static let request = ItemsRequest(
        docType: "org.iso.18013.5.1.mDL",
        nameSpaces: [
            .init(
                "org.iso.18013.5.1",
                [
                    .init("family_name"), .init("given_name"), .init("age_over_18"), .init("portrait"),
                    .init("document_number", intentToRetain: true),
                ])
        ])

    /// The kiosk policy (step 4): a trusted reader gets four of the elements it asks for.
    static func kioskPolicy(_ fixtures: URL) throws -> PolicyConsent {
        try PolicyConsent(
            text: """
                [[rule]]
                reader = "trusted"
                doctype = "org.iso.18013.5.1.mDL"
                allow = ["org.iso.18013.5.1:family_name", "org.iso.18013.5.1:given_name",
                         "org.iso.18013.5.1:age_over_18", "org.iso.18013.5.1:portrait"]
                """, baseDirectory: fixtures)
    }

    /// 4. The holder's side: it takes the establishment and its outputs are served until none
    /// is left; consent from `policy`, or the terminal when nil. The reply and what the
    /// history records.
    static func answer(_ establishment: [UInt8], holder: inout HolderSession, policy: PolicyConsent?) async throws
        -> (reply: [UInt8], records: [PresentationRecord])
    {
        var outputs = holder.receive(establishment)
        var reply: [UInt8] = []
        var records: [PresentationRecord] = []
        while !outputs.isEmpty {
            let output = outputs.removeFirst()
            switch output {
            case .requestReceived(let docTypes, let requester):
                section(
                    "4. Holder: request for \(docTypes.joined(separator: ", ")) from \(requester.displayName) (\(requester.authentication.summary))"
                )
            case .consentNeeded(let consent):
                let decision: ConsentDecision
                if let policy {
                    decision = policy.decideNow(consent)
                } else {
                    decision = await TerminalConsentPrompt(io: try ControllingTerminal()).decide(consent)
                }
                let approved = decision.approved(for: request.docType).sorted().map(\.description)
                print(
                    "   \(policy == nil ? "you approved" : "kiosk policy approves"): \(approved.joined(separator: ", "))"
                )
                outputs += holder.consent(decision)
            case .send(let bytes): reply = bytes
            case .responded(let r): records += r
            case .terminated(let reason): print("   session ended: \(reason)")
            }
        }
        return (reply, records)
    }

    /// 5. What the reader verified, element by element.
    static func printVerified(_ verified: VerifiedResponse, replyBytes: Int) {
        section(
            "5. Reader: SessionData, \(replyBytes) bytes, decrypted and verified: \(verified.isValid ? "VALID" : "NOT VALID")"
        )
        for doc in verified.documents {
            print(
                "   \(doc.docType): issued by \(doc.issuer.documentSigner?.subject ?? "?"), \(doc.deviceAuthKind) \(doc.deviceAuthFailure == nil ? "verified" : "FAILED")"
            )
            for e in doc.elements {
                print("   \(e.id) = \(e.value.diagnostic(maxBytes: 8))\(e.digestMatches ? "" : " DIGEST MISMATCH")")
            }
            for n in doc.notReturned { print("   not returned: \(n.id)") }
        }
    }

    static func section(_ title: String) { print("\n" + title) }
}

struct DemoError: Error, CustomStringConvertible {
    let description: String
    init(_ d: String) { description = d }
}

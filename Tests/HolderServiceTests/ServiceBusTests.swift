import ConsentPolicy
import DBus
import Foundation
import HolderRuntime
import MdocCrypto
import SecureArea
import TestSupport
import Testing
import Wallet

@testable import HolderService

/// `HolderService` on a private dbus-daemon without BlueZ: the name, the objects, the
/// methods' answers and errors as a D-Bus client sees them.
struct ServiceBusTests {
    static let fixtures = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .appendingPathComponent("../../Fixtures").standardized
    static let silentLog = ServiceLog(journal: false) { _ in }
    static let holder = "org.mdocholder.Holder1"

    /// A store holding the test mDL (Fixtures/), or an empty one.
    static func makeStore(in directory: URL, withCredential: Bool) throws -> String {
        let path = directory.appendingPathComponent("wallet-\(UUID().uuidString.prefix(8)).sqlite").path
        let store = try CredentialStore(path: path, secureAreas: .inMemory)
        if withCredential {
            let iaca = try Certificate.parsePEM(
                String(contentsOf: fixtures.appendingPathComponent("pki/iaca.pem"), encoding: .utf8))
            try store.import(
                fileBytes: [UInt8](try Data(contentsOf: fixtures.appendingPathComponent("mdl.cbor"))),
                deviceKeyPEM: try String(
                    contentsOf: fixtures.appendingPathComponent("mdl-device-key.pem"), encoding: .utf8),
                trustAnchors: iaca)
        }
        return path
    }

    /// A running service and a client connection on a fresh bus.
    static func withService(
        withCredential: Bool = true, consent: ServiceConsent = .agent(timeout: .seconds(5)), online: Bool = true,
        issuerTrust: [Certificate] = [],
        _ body: (PrivateBus, HolderService, DBusConnection) async throws -> Void
    ) async throws {
        try await PrivateBus.with { bus in
            let store = try makeStore(in: bus.directory, withCredential: withCredential)
            let service = try await HolderService.start(
                ServiceConfiguration(
                    storePath: store, busAddress: bus.address, consent: consent,
                    settings: HolderSettings(issuerTrust: issuerTrust), online: online),
                log: silentLog)
            let client = try await DBusConnection.connect(address: bus.address)
            do {
                try await body(bus, service, client)
            } catch {
                await client.close()
                await service.stop()
                throw error
            }
            await client.close()
            await service.stop()
        }
    }

    static func call(
        _ client: DBusConnection, _ member: String, _ body: [DBusValue] = [],
        interface: String = holder
    ) async throws -> [DBusValue] {
        try await client.call(
            destination: HolderService.busName, path: HolderService.objectPath, interface: interface, member: member,
            body: body, timeout: .seconds(10))
    }

    /// The D-Bus error name a call fails with (nil when it succeeds).
    static func errorName(
        _ client: DBusConnection, _ member: String, _ body: [DBusValue] = [], interface: String = holder
    ) async -> String? {
        do {
            _ = try await call(client, member, body, interface: interface)
            return nil
        } catch let error as DBusError {
            return error.name
        } catch {
            return "\(error)"
        }
    }

    static func options(_ options: [String: DBusValue]) -> DBusValue { .properties(options) }

    @Test func ownsTheNameAndAnswersProperties() async throws {
        try await Self.withService { _, _, client in
            #expect(try await client.nameOwner(HolderService.busName) != nil)
            let properties = try await client.getAllProperties(
                destination: HolderService.busName, path: HolderService.objectPath, interface: Self.holder)
            #expect(properties == ["Version": .uint32(1), "KioskMode": false])
        }
    }

    @Test func aSecondServiceOnTheSameBusSaysTheNameIsTaken() async throws {
        try await Self.withService { bus, _, _ in
            let store = try Self.makeStore(in: bus.directory, withCredential: false)
            do throws(HolderServiceError) {
                _ = try await HolderService.start(
                    ServiceConfiguration(
                        storePath: store, busAddress: bus.address, consent: .agent(timeout: .seconds(5))),
                    log: Self.silentLog)
                Issue.record("a second service started")
            } catch {
                #expect(error.name == "org.mdocholder.Error.Startup")
                #expect(error.description.contains("already owned"))
            }
        }
    }

    @Test func listsCredentialsAndHistoryWithoutValues() async throws {
        try await Self.withService { _, _, client in
            let list = try #require(try await Self.call(client, "ListCredentials").first?.arrayValue)
            #expect(list.count == 1)
            let credential = try #require(list[0].propertiesValue)
            #expect(
                Set(credential.keys) == ["id", "format", "doctype", "issuer", "valid_from", "valid_until", "elements"])
            #expect(credential["format"]?.stringValue == "mso_mdoc")
            #expect(credential["doctype"]?.stringValue == "org.iso.18013.5.1.mDL")
            #expect(credential["elements"]?.stringArrayValue?.contains("org.iso.18013.5.1:family_name") == true)
            #expect(credential["valid_until"]?.stringValue?.hasSuffix("Z") == true)
            let history = try await Self.call(client, "History", [.uint32(0)])
            #expect(history == [.array(.dictionary(key: .string, value: .variant), [])])
        }
    }

    @Test func refusesBadArgumentsWithNamedErrors() async throws {
        try await Self.withService { _, _, client in
            let invalid = "org.mdocholder.Error.InvalidArguments"
            #expect(await Self.errorName(client, "StartProximity", [Self.options(["colour": "blue"])]) == invalid)
            #expect(await Self.errorName(client, "StartProximity", [Self.options(["mode": "sideways"])]) == invalid)
            #expect(await Self.errorName(client, "StartProximity", [.string("hci0")]) == invalid)
            #expect(await Self.errorName(client, "Cancel", [.uint64(99)]) == "org.mdocholder.Error.NotFound")
            #expect(
                await Self.errorName(client, "PresentOnline", [.string("http://example.com/?a=b"), Self.options([:])])
                    == invalid)
            #expect(
                await Self.errorName(
                    client, "PresentOnline", [.string("openid4vp://?client_id=x"), Self.options(["x": "y"])])
                    == invalid)
        }
    }

    @Test func withoutBluetoothdStartProximityFailsWithABluetoothErrorAndFreesTheAdapter() async throws {
        try await Self.withService { _, _, client in
            for mode in ["peripheral", "central", "both"] {
                do {
                    _ = try await Self.call(
                        client, "StartProximity", [Self.options(["adapter": "hci0", "mode": .string(mode)])])
                    Issue.record("started without BlueZ")
                } catch let error as DBusError {
                    #expect(error.name == "org.mdocholder.Error.Bluetooth")
                    #expect(error.message.contains("hci0"))
                }
            }
        }
    }

    @Test func onlinePresentationIsOffUnlessAsked() async throws {
        try await Self.withService(online: false) { _, _, client in
            #expect(
                await Self.errorName(
                    client, "PresentOnline", [.string("openid4vp://?client_id=x"), Self.options([:])])
                    == "org.mdocholder.Error.NotSupported")
        }
    }

    static func iaca() throws -> [Certificate] {
        try Certificate.parsePEM(String(contentsOf: fixtures.appendingPathComponent("pki/iaca.pem"), encoding: .utf8))
    }

    /// The D-Bus error (name and message) a ReceiveCredential call fails with.
    static func receiveError(
        _ client: DBusConnection, _ offer: String, _ options: [String: DBusValue] = [:]
    ) async -> DBusError? {
        do {
            _ = try await call(client, "ReceiveCredential", [.string(offer), Self.options(options)])
            return nil
        } catch {
            return error as? DBusError
        }
    }

    @Test func receivingCredentialsIsOffUnlessAskedAsPresentingOnlineIs() async throws {
        try await Self.withService(online: false, issuerTrust: try Self.iaca()) { _, _, client in
            let error = try #require(
                await Self.receiveError(
                    client, "openid-credential-offer://?credential_offer_uri=https%3A%2F%2Fissuer.example%2Fo"))
            #expect(error.name == "org.mdocholder.Error.NotSupported")
            #expect(error.message.contains("--online"))
        }
    }

    @Test func receivingNeedsIssuerTrustAnchors() async throws {
        try await Self.withService { _, _, client in
            let error = try #require(
                await Self.receiveError(
                    client, "openid-credential-offer://?credential_offer_uri=https%3A%2F%2Fissuer.example%2Fo"))
            #expect(error.name == "org.mdocholder.Error.NotSupported")
            #expect(error.message.contains("--trust-anchor"))
        }
    }

    @Test func receiveCredentialRefusesBadArgumentsAndOffersBeforeAnyRequest() async throws {
        try await Self.withService(issuerTrust: try Self.iaca()) { _, _, client in
            let invalid = "org.mdocholder.Error.InvalidArguments"
            let offer = "openid-credential-offer://?credential_offer_uri=https%3A%2F%2Fissuer.example%2Fo"
            #expect(await Self.receiveError(client, offer, ["tx_code": "1234"])?.name == invalid)
            #expect(await Self.receiveError(client, offer, ["batch": .uint32(0)])?.name == invalid)
            #expect(await Self.errorName(client, "ReceiveCredential", [.string(offer)]) == invalid)
            // Not an offer: refused by the offer's parser, nothing fetched, no session left behind.
            let notAnOffer = try #require(await Self.receiveError(client, "openid-credential-offer://"))
            #expect(notAnOffer.name == invalid)
            #expect(notAnOffer.message.contains("credential_offer"))
            let huge = "openid-credential-offer://?credential_offer=" + String(repeating: "x", count: 70_000)
            let tooLong = try #require(await Self.receiveError(client, huge))
            #expect(tooLong.name == invalid && tooLong.message.count <= HolderServiceError.replyLimit)
        }
    }

    @Test func anEmptyStoreHasNothingToPresent() async throws {
        try await Self.withService(withCredential: false) { _, _, client in
            #expect(
                await Self.errorName(client, "StartProximity", [Self.options([:])])
                    == "org.mdocholder.Error.NoCredential")
        }
    }

    @Test func aPolicyServiceRefusesAgents() async throws {
        let policy = try PolicyConsent(text: "", baseDirectory: URL(fileURLWithPath: "/"))
        try await Self.withService(consent: .policy(policy, path: "/etc/kiosk.toml")) { _, _, client in
            #expect(
                await Self.errorName(
                    client, "RegisterAgent", [.objectPath("/agent")], interface: "org.mdocholder.AgentManager1")
                    == "org.mdocholder.Error.NotSupported")
        }
    }

    @Test func agentsRegisterAndUnregisterThroughTheManager() async throws {
        try await Self.withService { _, _, client in
            let manager = "org.mdocholder.AgentManager1"
            #expect(await Self.errorName(client, "RegisterAgent", [.objectPath("/agent")], interface: manager) == nil)
            #expect(
                await Self.errorName(client, "UnregisterAgent", [.objectPath("/other")], interface: manager)
                    == "org.mdocholder.Error.NotFound")
            #expect(await Self.errorName(client, "UnregisterAgent", [.objectPath("/agent")], interface: manager) == nil)
        }
    }
}

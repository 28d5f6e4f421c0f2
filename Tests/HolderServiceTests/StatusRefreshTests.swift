import DBus
import Foundation
import MdocCrypto
import Testing
import Wallet

@testable import HolderService

/// The credentials' status on the bus: ListCredentials carries the last known status and when it
/// was checked; RefreshStatus needs `--online` and issuer trust anchors, and checks only the
/// credentials that carry a status list reference.
struct StatusRefreshTests {
    static func iaca() throws -> [Certificate] {
        try Certificate.parsePEM(
            String(contentsOf: ServiceBusTests.fixtures.appendingPathComponent("pki/iaca.pem"), encoding: .utf8))
    }

    @Test func listCredentialsCarriesTheLastKnownStatus() async throws {
        try await ServiceBusTests.withService { _, service, client in
            let store = try CredentialStore(path: service.configuration.storePath, secureAreas: .inMemory)
            let id = try #require(try store.list().first?.id)
            try store.setLastStatus(id: id, LastKnownStatus(.suspended, checkedAt: Date(timeIntervalSince1970: 0)))
            let list = try #require(try await ServiceBusTests.call(client, "ListCredentials").first?.arrayValue)
            let credential = try #require(list.first?.propertiesValue)
            #expect(credential["status"]?.stringValue == "suspended")
            #expect(credential["status_checked_at"]?.stringValue == "1970-01-01T00:00:00Z")
        }
    }

    @Test func refreshStatusNeedsOnlineAndIssuerTrust() async throws {
        let notSupported = "org.mdocholder.Error.NotSupported"
        try await ServiceBusTests.withService(online: false, issuerTrust: try Self.iaca()) { _, _, client in
            #expect(await ServiceBusTests.errorName(client, "RefreshStatus") == notSupported)
        }
        try await ServiceBusTests.withService(online: true) { _, _, client in
            #expect(await ServiceBusTests.errorName(client, "RefreshStatus") == notSupported)
            #expect(
                await ServiceBusTests.errorName(client, "RefreshStatus", [.string("x")])
                    == "org.mdocholder.Error.InvalidArguments")
        }
    }

    @Test func refreshStatusChecksOnlyCredentialsWithAReference() async throws {
        // The test mDL of Fixtures/ carries no status reference: nothing to fetch, nothing checked.
        try await ServiceBusTests.withService(online: true, issuerTrust: try Self.iaca()) { _, _, client in
            let reply = try await ServiceBusTests.call(client, "RefreshStatus")
            #expect(reply == [.array(.dictionary(key: .string, value: .variant), [])])
        }
    }
}

import BLETestSupport
import ConsentPolicy
import Foundation
import ISO18013
import MdocCrypto
import Presentation
import ProximityReader
import SQLite
import SecureArea
import Synchronization
import Wallet

/// One proximity session both adapters run: the store it starts from (a real SQLite file,
/// the test mDL of Fixtures/, with or without a damaged row), the consent policy, and what
/// the reader asks.
enum ParityScenario: String, CaseIterable, Sendable, CustomStringConvertible {
    /// The policy lets the reader have both elements asked for.
    case released
    /// The policy has no rule: everything is declined.
    case declined
    /// The reader asks for a doc type the store does not hold.
    case noMatchingCredential
    /// A second row of the store cannot be read: it is left out, named once, and the first
    /// is presented.
    case damagedRow

    var description: String { rawValue }

    static let fixtures = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .appendingPathComponent("../../Fixtures").standardized
    static let nameSpace = "org.iso.18013.5.1"
    static let mDL = "org.iso.18013.5.1.mDL"
    /// The id given to the damaged copy of the row.
    static let damagedID = "00000000000000ff"

    var policyText: String {
        switch self {
        case .declined: ""
        case .released, .noMatchingCredential, .damagedRow:
            """
            [[rule]]
            reader = "any"
            doctype = "*"
            allow = ["*"]
            """
        }
    }

    var policy: PolicyConsent {
        get throws { try PolicyConsent(text: policyText, baseDirectory: URL(fileURLWithPath: "/")) }
    }

    var request: ItemsRequest {
        ItemsRequest(
            docType: self == .noMatchingCredential ? "org.example.loyalty.1" : Self.mDL,
            nameSpaces: [.init(Self.nameSpace, [.init("family_name"), .init("age_over_18")])])
    }

    /// A store file in `directory` for this scenario; every run copies it, so both adapters
    /// start from the same rows (the same credential ids).
    func makeStoreFile(in directory: URL) throws -> String {
        let path = directory.appendingPathComponent("\(rawValue).sqlite").path
        let store = try CredentialStore(path: path, secureAreas: .inMemory)
        try store.import(
            fileBytes: [UInt8](try Data(contentsOf: Self.fixtures.appendingPathComponent("mdl.cbor"))),
            deviceKeyPEM: try String(
                contentsOf: Self.fixtures.appendingPathComponent("mdl-device-key.pem"), encoding: .utf8),
            trustAnchors: try Self.certificates("pki/iaca.pem"))
        if self == .damagedRow {
            let db = try SQLiteDatabase(path: path)
            try db.execute(
                """
                CREATE TEMP TABLE damaged AS SELECT * FROM credentials;
                UPDATE damaged SET id = '\(Self.damagedID)', elements = 'not json';
                INSERT INTO credentials SELECT * FROM damaged;
                """)
        }
        return path
    }

    /// A copy of `file` for one run.
    static func copy(_ file: String, as name: String) throws -> CredentialStore {
        let path = URL(fileURLWithPath: file).deletingLastPathComponent().appendingPathComponent(name).path
        try FileManager.default.copyItem(atPath: file, toPath: path)
        return try CredentialStore(path: path, secureAreas: .inMemory)
    }

    static func certificates(_ name: String) throws -> [Certificate] {
        try Certificate.parsePEM(String(contentsOf: fixtures.appendingPathComponent(name), encoding: .utf8))
    }

    /// The reader of Fixtures/pki: connects to the engagement over `wire`, asks once, ends.
    func read(over wire: InMemoryGattWire, engagementURI: String) async throws {
        let engagement = try DeviceEngagement(uri: engagementURI)
        let reader = ProximityReader(client: wire.client, server: wire.server, timeout: .seconds(10))
        guard let options = engagement.bleOptions else { throw ReaderError.noBLE }
        let connection = try await reader.connect(
            try ReaderBLEMode(choosing: .auto, from: options), engagement: engagement)
        let key = try PrivateKey(
            pem: String(contentsOf: Self.fixtures.appendingPathComponent("pki/reader.key.pem"), encoding: .utf8))
        var session = try ReaderSession(
            engagement: engagement, trustAnchors: try Self.certificates("pki/iaca.pem"),
            identity: ReaderIdentity(key: key, chain: try Self.certificates("pki/reader.pem")))
        _ = try await connection.exchange(
            try session.establishment(requesting: [request]), with: &session, timeout: .seconds(10))
    }

    enum ReaderError: Error { case noBLE, noEngagement }
}

/// The engagement URI the holder shows, waited for by the reader.
final class EngagementBox: Sendable {
    private let uri = Mutex<String?>(nil)

    func set(_ value: String) { uri.withLock { $0 = value } }

    func wait() async throws -> String {
        for _ in 0..<500 {
            if let value = uri.withLock({ $0 }) { return value }
            try await Task.sleep(for: .milliseconds(10))
        }
        throw ParityScenario.ReaderError.noEngagement
    }
}

/// Collected lines.
final class Lines: Sendable {
    private let lines = Mutex<[String]>([])
    func append(_ line: String) { lines.withLock { $0.append(line) } }
    var all: [String] { lines.withLock { $0 } }
}

import DBus
import Foundation
import Testing

@testable import HolderService

/// Text a D-Bus caller sends comes back in replies and logs cut to a few hundred
/// characters, whatever its size.
struct CallerInputBoundTests {
    static let configuration = ServiceConfiguration(storePath: "/nonexistent", consent: .agent(timeout: .seconds(5)))
    static let megabyte = String(repeating: "a", count: 1 << 20)

    @Test func aHugeAdapterNameIsRefusedWithoutBeingRepeated() {
        let error = #expect(throws: HolderServiceError.self) {
            try HolderInterface.proximityOptions(
                .properties(["adapter": .string(Self.megabyte)]), configuration: Self.configuration)
        }
        #expect((error?.dbusError.message.count ?? .max) < 200)
    }

    @Test func adapterNamesAreWhatBlueZNames() {
        #expect(HolderInterface.isAdapterName("hci0"))
        #expect(HolderInterface.isAdapterName("hci12"))
        #expect(!HolderInterface.isAdapterName(""))
        #expect(!HolderInterface.isAdapterName("hci0/dev_00"))
        #expect(!HolderInterface.isAdapterName("hci0\nforged log line"))
        #expect(!HolderInterface.isAdapterName(String(repeating: "h", count: 33)))
    }

    @Test func aHugeOptionNameIsCutInTheReply() {
        let error = #expect(throws: HolderServiceError.self) {
            try HolderInterface.proximityOptions(
                .properties([Self.megabyte: .string("x")]), configuration: Self.configuration)
        }
        let message = error?.dbusError.message ?? ""
        #expect(message.count < 200)
        #expect(message.contains("(1048576 characters)"))
    }

    @Test func everyReplyAndLogLineIsBounded() {
        #expect(HolderServiceError.failed(Self.megabyte).dbusError.message.count <= HolderServiceError.replyLimit + 40)
        let lines = Lines()
        let log = ServiceLog(journal: false) { lines.append($0) }
        log.info("session 1: request from \(Self.megabyte)")
        #expect((lines.all.first?.count ?? .max) <= ServiceLog.lineLimit + 60)
    }

    /// A reader's or an issuer's words in a log line or a D-Bus error: escape sequences, a
    /// bidirectional override and a newline are shown escaped, one event one line.
    @Test func remoteTextInALogLineOrADBusErrorIsEscaped() {
        let hostile = "Evil\u{1B}[2J\u{1B}[H\nmdoc-holder: forged\u{202E}\u{9B}31m"
        let escaped = #"Evil\u{1B}[2J\u{1B}[H\nmdoc-holder: forged\u{202E}\u{9B}31m"#
        let lines = Lines()
        ServiceLog(journal: false) { lines.append($0) }.info("session 1: declined x for \(hostile)")
        ServiceLog(journal: true) { lines.append($0) }.info("session 1: declined x for \(hostile)")
        #expect(
            lines.all == [
                "mdoc-holder: session 1: declined x for \(escaped)\n", "<6>session 1: declined x for \(escaped)\n",
            ])
        #expect(HolderServiceError.issuerRefused(hostile).dbusError.message == escaped)
    }
}

/// Log lines a test collects.
final class Lines: @unchecked Sendable {
    private let lock = NSLock()
    private var lines: [String] = []
    func append(_ line: String) {
        lock.lock()
        lines.append(line)
        lock.unlock()
    }
    var all: [String] {
        lock.lock()
        defer { lock.unlock() }
        return lines
    }
}

import DBus
import Presentation

/// The signals of `org.mdocholder.Holder1`, sent in the order they are raised: one queue,
/// one task sending them, so EngagementReady, ReaderConnected, RequestReceived, ResponseSent
/// (or CredentialReceived) and Ended of a session leave in that order whatever task raised them.
final class HolderSignals: Sendable {
    static let path: DBusObjectPath = "/org/mdocholder"
    static let interface = "org.mdocholder.Holder1"

    private let continuation: AsyncStream<DBusMessage>.Continuation
    private let sender: Task<Void, Never>

    init(connection: DBusConnection) {
        let (stream, continuation) = AsyncStream<DBusMessage>.makeStream()
        self.continuation = continuation
        sender = Task {
            for await signal in stream { try? await connection.emit(signal) }
        }
    }

    deinit {
        continuation.finish()
    }

    /// Waits until every signal raised so far has been handed to the connection.
    func finish() async {
        continuation.finish()
        await sender.value
    }

    func engagementReady(_ session: UInt64, uri: String) {
        raise("EngagementReady", [.uint64(session), .string(uri)])
    }

    func readerConnected(_ session: UInt64) {
        raise("ReaderConnected", [.uint64(session)])
    }

    func requestReceived(_ session: UInt64, requester: String, docTypes: [String]) {
        raise("RequestReceived", [.uint64(session), .string(requester), .strings(docTypes)])
    }

    func responseSent(_ session: UInt64, docTypes: [String], elements: Int) {
        raise("ResponseSent", [.uint64(session), .strings(docTypes), .uint32(UInt32(clamping: elements))])
    }

    /// ResponseSent for a response carrying `records`: the doc types sent and their elements.
    func responseSent(_ session: UInt64, _ records: [PresentationRecord]) {
        let sent = records.filter { $0.outcome == .sent }
        responseSent(session, docTypes: sent.map(\.docType), elements: sent.reduce(0) { $0 + $1.elementsSent.count })
    }

    func credentialReceived(_ session: UInt64, credentialID: String, docType: String, copies: Int) {
        raise(
            "CredentialReceived",
            [.uint64(session), .string(credentialID), .string(docType), .uint32(UInt32(clamping: copies))])
    }

    func ended(_ session: UInt64, reason: String) {
        raise("Ended", [.uint64(session), .string(reason)])
    }

    private func raise(_ member: String, _ body: [DBusValue]) {
        continuation.yield(.signal(path: Self.path, interface: Self.interface, member: member, body: body))
    }
}

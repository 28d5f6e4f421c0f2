import Foundation
import Synchronization

/// One thing a case saw or did, at a time since the case started. Bytes are kept as hex
/// (what travelled: our messages and the holder's ciphertext, never decrypted claim values).
public struct EvidenceEntry: Sendable, Hashable {
    /// Milliseconds since the case started.
    public let milliseconds: Int
    /// What happened, in words ("sent SessionEstablishment", "holder: SessionData status 10").
    public let what: String
    /// The bytes, as lowercase hex (cut after ``EvidenceLog/hexLimit`` bytes), when any.
    public let hex: String?
    /// The byte count before cutting.
    public let byteCount: Int?
}

/// The evidence of one case, appended from its task.
public final class EvidenceLog: Sendable {
    /// Bytes shown per entry; longer messages are cut (their size is kept).
    public static let hexLimit = 256

    private let start = ContinuousClock.now
    private let entries = Mutex<[EvidenceEntry]>([])

    public init() {}

    /// Notes an event, with the bytes involved.
    public func note(_ what: String, bytes: [UInt8]? = nil) {
        let elapsed = ContinuousClock.now - start
        let ms = Int(elapsed.components.seconds) * 1000 + Int(elapsed.components.attoseconds / 1_000_000_000_000_000)
        let entry = EvidenceEntry(
            milliseconds: ms, what: what, hex: bytes.map { Self.hex($0.prefix(Self.hexLimit)) },
            byteCount: bytes?.count)
        entries.withLock { $0.append(entry) }
    }

    public var all: [EvidenceEntry] { entries.withLock { $0 } }

    static func hex(_ bytes: some Collection<UInt8>) -> String {
        bytes.map { String(format: "%02x", $0) }.joined()
    }
}

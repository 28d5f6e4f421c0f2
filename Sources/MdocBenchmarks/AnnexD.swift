import Foundation
import ISO18013

/// The Annex D vectors, read from Fixtures/vectors (found next to this source tree, or
/// under the directory in MDOC_FIXTURES).
enum AnnexD {
    nonisolated(unsafe) static let entries: [String: Any] = {
        let root =
            ProcessInfo.processInfo.environment["MDOC_FIXTURES"].map { URL(fileURLWithPath: $0) }
            ?? URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent("Fixtures")
        let url = root.appendingPathComponent("vectors/iso18013-5-annex-d.json")
        guard let data = try? Data(contentsOf: url),
            let json = try? JSONSerialization.jsonObject(with: data) as? [String: Any]
        else {
            FileHandle.standardError.write(
                Data("cannot read \(url.path); set MDOC_FIXTURES to the Fixtures directory\n".utf8))
            exit(2)
        }
        return json
    }()

    static func bytes(_ key: String) -> [UInt8] {
        guard let hex = (entries[key] as? [String: Any])?["hex"] as? String, let bytes = Hex.decode(hex) else {
            fatalError("no vector \(key)")
        }
        return bytes
    }
}

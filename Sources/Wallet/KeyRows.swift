import FoundationEssentials
import MdocCrypto
import SQLite
import SecureArea

/// The `keys` table: one row per device key, naming its secure area and holding only what that
/// area needs.
enum KeyRows {
    static let columns = "id, secure_area, curve, public_key, key_blob, requires_passphrase, created_at"
    /// ``columns`` of the `keys` table joined as `k` (written out: deriving it costs the Swift
    /// runtime type lookups at the start of every `present`; a test holds the two equal).
    static let joinedColumns =
        "k.id, k.secure_area, k.curve, k.public_key, k.key_blob, k.requires_passphrase, k.created_at"

    static func insert(_ key: StoredKey, into db: SQLiteDatabase) throws(SQLiteError) {
        _ = try db.run(
            "INSERT INTO keys (\(columns)) VALUES (?, ?, ?, ?, ?, ?, ?)",
            [
                .text(key.id), .text(key.area.rawValue), .text(key.curve.rawValue), .blob(key.publicKeyDER),
                .blob(key.blob), .integer(key.requiresPassphrase ? 1 : 0), .real(key.createdAt.timeIntervalSince1970),
            ])
    }

    /// Reads a key from `columns` starting at `offset`; nil when the row names an unknown area
    /// or curve.
    static func read(_ s: SQLiteStatement, at offset: Int32 = 0) -> StoredKey? {
        guard let id = s.text(offset), let area = SecureAreaName(rawValue: s.text(offset + 1) ?? ""),
            let curve = Curve(rawValue: s.text(offset + 2) ?? "")
        else { return nil }
        return StoredKey(
            id: id, area: area, curve: curve, publicKeyDER: s.blob(offset + 3) ?? [], blob: s.blob(offset + 4) ?? [],
            requiresPassphrase: s.int64(offset + 5) != 0,
            createdAt: Date(timeIntervalSince1970: s.double(offset + 6)))
    }
}
